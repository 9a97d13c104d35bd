package dev.bulwark.internal;

import dev.bulwark.Permit;
import dev.bulwark.internal.spi.VarHandles;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.CompletableFuture;
import java.util.function.BiConsumer;

/**
 * Releases the slot when the operation's own stage completes, then relays its outcome.
 *
 * <p>Invariant: {@link #done} goes from 0 to 1 once by compare-and-set; only that thread releases.
 */
final class AsyncCompletion<T> implements BiConsumer<T, Throwable> {
    private static final VarHandle DONE = VarHandles.field(MethodHandles.lookup(), "done", int.class);

    private final InProcessBulkhead bulkhead;
    private final CompletableFuture<T> result;
    private final long startedAt;
    private volatile int done;

    AsyncCompletion(InProcessBulkhead bulkhead, CompletableFuture<T> result, long startedAt) {
        this.bulkhead = bulkhead;
        this.result = result;
        this.startedAt = startedAt;
    }

    @Override
    public void accept(T value, Throwable failure) {
        if (!DONE.compareAndSet(this, 0, 1)) {
            return;
        }
        if (failure == null) {
            bulkhead.releaseAfterRun(startedAt, Permit.Outcome.SUCCESS);
            result.complete(value);
        } else {
            // A stage that failed through a dependent carries a CompletionException around the real cause;
            // relay the cause itself so the caller sees the operation's own exception, wrapped once at most.
            Throwable cause = Stages.unwrap(failure);
            bulkhead.releaseAfterRun(startedAt, bulkhead.outcomeOf(cause));
            result.completeExceptionally(cause);
        }
    }
}
