package dev.bulwark.benchmarks.subjects;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;

/**
 * The floor: a bare {@link Semaphore} used the way one would by hand. Without a queue it refuses with
 * {@link Semaphore#tryAcquire()}; with one it waits with {@link Semaphore#tryAcquire(long, TimeUnit)}, which
 * respects fairness (the untimed {@code tryAcquire()} barges even on a fair semaphore). It cannot wait without
 * blocking, so an asynchronous call that must wait blocks its caller: the conformance check reports that.
 */
final class SemaphoreSubject implements Subject {

    private final String name;
    private final Semaphore semaphore;
    private final boolean waits;
    private final long maxWaitNanos;
    /** Allocated once: releasing from a stage's completion must not cost the floor a capture per call. */
    private final BiConsumer<Object, Throwable> releaseOnCompletion;

    SemaphoreSubject(String name, SubjectSpec spec, boolean fair) {
        this.name = name;
        this.semaphore = new Semaphore(spec.limit(), fair);
        this.waits = spec.waits();
        this.maxWaitNanos = spec.maxWait().toNanos();
        Semaphore permits = semaphore;
        this.releaseOnCompletion = (ignoredResult, ignoredFailure) -> permits.release();
    }

    @Override
    public String name() {
        return name;
    }

    private boolean acquire() {
        if (!waits) {
            return semaphore.tryAcquire();
        }
        try {
            return semaphore.tryAcquire(maxWaitNanos, TimeUnit.NANOSECONDS);
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
            semaphore.release();
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
            semaphore.release();
            return CompletableFuture.failedFuture(failure);
        }
        return stage.whenComplete(releaseOnCompletion).toCompletableFuture();
    }

    @Override
    public Slot occupy() {
        if (!semaphore.tryAcquire()) {
            throw new IllegalStateException(name + ": no free permit to occupy");
        }
        return semaphore::release;
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
