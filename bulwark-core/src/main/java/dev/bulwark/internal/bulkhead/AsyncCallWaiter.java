package dev.bulwark.internal.bulkhead;

import dev.bulwark.CancellationSignal;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;

/**
 * A queued {@code callAsync}: once granted, it starts the operation and relays its stage to the caller's future,
 * which is the base class's {@code callerFuture} (not a second field: 8 bytes less per queued call, the object
 * aligns to 88 bytes instead of 96).
 */
final class AsyncCallWaiter<T> extends AsyncWaiter {

    private final Supplier<? extends CompletionStage<T>> operation;

    AsyncCallWaiter(Room room, CancellationSignal signal, Supplier<? extends CompletionStage<T>> operation,
                    CompletableFuture<T> result) {
        super(room, signal, result, true);
        this.operation = operation;
    }

    @Override
    @SuppressWarnings("unchecked") // the caller's future is the CompletableFuture<T> the constructor was given
    void begin() {
        room.startAsync(operation, (CompletableFuture<T>) callerFuture, weight);
    }
}
