package dev.bulwark.internal.spi;

import dev.bulwark.internal.util.Stages;
import dev.bulwark.internal.util.VarHandles;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.BiConsumer;
import java.util.function.Supplier;

/**
 * Starts an asynchronous operation that holds a bulkhead slot, and gives the slot back when the operation's own
 * stage completes: the one implementation every bulkhead uses once a call has its slot (at once, or when its
 * queued waiter is granted).
 *
 * <p>Every path releases exactly once: the supplier throws or returns {@code null} (released at once, the
 * caller's future fails with that), the stage is already complete (released without registering a callback, so
 * nothing is allocated), the stage completes later (released by a one-shot callback), or the stage refuses a
 * callback (released at once). The caller's future completes after the release, so a caller that reacts by
 * calling again finds the slot free. The operation's failure reaches the caller untouched: a
 * {@link java.util.concurrent.CompletionException} a dependent stage wrapped around it is taken off.
 */
public final class AsyncOperation {

    /**
     * Gives back the slot an operation held. Called exactly once per started operation, on the thread that
     * observed its end (the caller's, or the one that completed the stage).
     */
    @FunctionalInterface
    public interface Slot {

        /**
         * Releases the slot.
         *
         * @param startedAt the value given to {@link #start}, for timing the operation
         * @param failure the operation's failure, unwrapped, or {@code null} when it succeeded
         */
        void release(long startedAt, Throwable failure);
    }

    private AsyncOperation() {
    }

    /**
     * Runs {@code operation}, which holds {@code slot}, and relays its outcome to {@code result}.
     *
     * @param operation supplies the operation's stage; invoked once, on the current thread
     * @param result the caller's future
     * @param slot releases the slot
     * @param startedAt handed back to {@code slot} (a ticker reading, or {@code SampledListener.UNTIMED} when the call
     * is not timed)
     * @param <T> the result type
     */
    public static <T> void start(Supplier<? extends CompletionStage<T>> operation, CompletableFuture<T> result,
                                 Slot slot, long startedAt) {
        CompletionStage<T> stage;
        try {
            stage = operation.get();
            if (stage == null) {
                throw new NullPointerException("operation returned null instead of a CompletionStage");
            }
        } catch (Throwable failure) {
            slot.release(startedAt, failure);
            result.completeExceptionally(failure);
            return;
        }
        // An already-successful plain CompletableFuture is relayed without registering a callback (no
        // allocation). Only the exact class: subclasses may override these methods (minimalCompletionStage()'s
        // throws UnsupportedOperationException from isDone()).
        if (stage.getClass() == CompletableFuture.class) {
            CompletableFuture<T> future = (CompletableFuture<T>) stage;
            if (future.isDone() && !future.isCompletedExceptionally()) {
                T value = future.getNow(null);
                slot.release(startedAt, null);
                result.complete(value);
                return;
            }
        }
        Completion<T> completion = new Completion<>(slot, result, startedAt);
        try {
            stage.whenComplete(completion);
        } catch (Throwable brokenStage) {
            // A foreign stage that cannot take a callback would otherwise keep the slot forever. Completion is
            // one-shot, so if the callback did get registered and fires later, nothing is released twice.
            completion.accept(null, brokenStage);
        }
    }

    /**
     * Releases the slot when the operation's own stage completes, then relays its outcome.
     *
     * <p>Invariant: {@link #done} goes from 0 to 1 once by compare-and-set; only that thread releases.
     */
    private static final class Completion<T> implements BiConsumer<T, Throwable> {
        private static final VarHandle DONE = VarHandles.field(MethodHandles.lookup(), "done", int.class);

        private final Slot slot;
        private final CompletableFuture<T> result;
        private final long startedAt;
        private volatile int done;

        Completion(Slot slot, CompletableFuture<T> result, long startedAt) {
            this.slot = slot;
            this.result = result;
            this.startedAt = startedAt;
        }

        @Override
        public void accept(T value, Throwable failure) {
            if (!DONE.compareAndSet(this, 0, 1)) {
                return;
            }
            if (failure == null) {
                slot.release(startedAt, null);
                result.complete(value);
            } else {
                // A stage that failed through a dependent carries a CompletionException around the real cause;
                // relay the cause itself so the caller sees the operation's own exception, wrapped once at most.
                Throwable cause = Stages.unwrap(failure);
                slot.release(startedAt, cause);
                result.completeExceptionally(cause);
            }
        }
    }
}
