package dev.bulwark.benchmarks.conformance;

/**
 * Thrown from a benchmark's setup when its subject fails a check the scenario depends on: JMH then reports the
 * benchmark as failed and measures nothing, because the figures of a broken bulkhead mean nothing.
 */
public final class NonConformingSubjectException extends IllegalStateException {

    private static final long serialVersionUID = 1L;

    /**
     * Creates the exception.
     *
     * @param message which subject failed which check, and what was observed
     */
    public NonConformingSubjectException(String message) {
        super(message);
    }
}
