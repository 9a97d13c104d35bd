package dev.bulwark.internal;

import dev.bulwark.CancellationSignal;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;

/** A queued {@code callAsync}: once granted, it starts the operation and relays its stage to the caller. */
final class AsyncCallWaiter<T> extends AsyncWaiter {

    private final Supplier<? extends CompletionStage<T>> operation;
    private final CompletableFuture<T> result;

    AsyncCallWaiter(InProcessBulkhead bulkhead, CancellationSignal signal, long enqueuedAt, long maxWaitNanos,
                    Supplier<? extends CompletionStage<T>> operation, CompletableFuture<T> result) {
        super(bulkhead, signal, enqueuedAt, maxWaitNanos, result);
        this.operation = operation;
        this.result = result;
    }

    @Override
    void begin() {
        bulkhead.startAsync(operation, result, weight);
    }
}
