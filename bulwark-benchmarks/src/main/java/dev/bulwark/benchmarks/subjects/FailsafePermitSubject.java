package dev.bulwark.benchmarks.subjects;

import dev.failsafe.Bulkhead;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.BiConsumer;

/**
 * Failsafe's bulkhead used standalone, as its documentation also shows: {@code tryAcquirePermit()} and
 * {@code releasePermit()} around the call. Without a queue this path never enqueues a waiter, so it avoids Failsafe
 * issue #393 (the permit leaked by a refused executor call): it is the configuration to use with Failsafe 3.3.2
 * when refusals must not break the bulkhead. A refusal here is Failsafe's {@code false}, so, like the raw
 * semaphore, it costs no exception.
 *
 * <p>With a queue it waits with {@code tryAcquirePermit(maxWait)}, which blocks the caller and, should the wait
 * ever time out, leaks a permit the same way (#393); the scenarios never let a wait time out. The standalone API has
 * no non-blocking wait, so an asynchronous call that must wait blocks its caller: the conformance check reports it.
 */
final class FailsafePermitSubject implements Subject {

    private final String name;
    private final Bulkhead<Object> bulkhead;
    private final SubjectSpec spec;
    private final BiConsumer<Object, Throwable> releaseOnCompletion;

    FailsafePermitSubject(String name, SubjectSpec spec) {
        this.name = name;
        this.spec = spec;
        this.bulkhead = Bulkhead.<Object>builder(spec.limit()).build();
        Bulkhead<Object> permits = bulkhead;
        this.releaseOnCompletion = (ignoredResult, ignoredFailure) -> permits.releasePermit();
    }

    @Override
    public String name() {
        return name;
    }

    private boolean acquire() {
        if (!spec.waits()) {
            return bulkhead.tryAcquirePermit();
        }
        try {
            return bulkhead.tryAcquirePermit(spec.maxWait());
        } catch (InterruptedException interrupted) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    @Override
    public Object call(Work work) {
        if (!acquire()) {
            return NoPermit.INSTANCE;
        }
        try {
            return work.get();
        } finally {
            bulkhead.releasePermit();
        }
    }

    @Override
    public CompletableFuture<Object> callAsync(AsyncWork work) {
        if (!acquire()) {
            return CompletableFuture.failedFuture(NoPermit.INSTANCE);
        }
        CompletionStage<Object> stage;
        try {
            stage = work.get();
        } catch (Throwable failure) {
            bulkhead.releasePermit();
            return CompletableFuture.failedFuture(failure);
        }
        return stage.whenComplete(releaseOnCompletion).toCompletableFuture();
    }

    @Override
    public Slot occupy() {
        if (!bulkhead.tryAcquirePermit()) {
            throw new IllegalStateException(name + ": no free permit to occupy");
        }
        return bulkhead::releasePermit;
    }

    @Override
    public boolean isRefusal(Object result) {
        return result == NoPermit.INSTANCE;
    }

    @Override
    public boolean isRefusal(Throwable failure) {
        return failure == NoPermit.INSTANCE;
    }
}
