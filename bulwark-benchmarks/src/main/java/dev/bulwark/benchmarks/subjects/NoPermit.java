package dev.bulwark.benchmarks.subjects;

/**
 * The refusal of the subjects that have no refusal of their own (a raw {@link java.util.concurrent.Semaphore},
 * Failsafe's bulkhead used standalone, whose {@code tryAcquirePermit} returns {@code false}): one shared,
 * stackless instance, which is what a caller of such an API would hand back, so that these rows cost nothing for
 * the refusal itself.
 */
final class NoPermit extends RuntimeException {

    private static final long serialVersionUID = 1L;

    static final NoPermit INSTANCE = new NoPermit();

    private NoPermit() {
        super("no permit", null, false, false);
    }
}
