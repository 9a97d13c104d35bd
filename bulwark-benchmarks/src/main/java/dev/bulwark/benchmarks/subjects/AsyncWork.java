package dev.bulwark.benchmarks.subjects;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;

/**
 * An asynchronous operation that every implementation accepts as it is: the JDK's {@link Supplier} of a stage
 * (Bulwark and Resilience4j) and Failsafe's {@link dev.failsafe.function.CheckedSupplier} of one.
 */
public abstract class AsyncWork implements Supplier<CompletionStage<Object>>,
        dev.failsafe.function.CheckedSupplier<CompletionStage<Object>> {

    /**
     * Starts the operation.
     *
     * @return the stage that completes when it ends
     */
    @Override
    public abstract CompletionStage<Object> get();

    /**
     * Returns an operation whose stage is already complete with {@link Work#RESULT}, the same stage every time:
     * the asynchronous fast path with nothing of the operation's own.
     *
     * @return the shared operation
     */
    public static AsyncWork alreadyCompleted() {
        return AlreadyCompleted.INSTANCE;
    }

    /**
     * Returns an operation that returns the given stage.
     *
     * @param stage the stage the operation returns
     * @return a new operation
     */
    public static AsyncWork returning(CompletionStage<Object> stage) {
        return new AsyncWork() {
            @Override
            public CompletionStage<Object> get() {
                return stage;
            }
        };
    }

    private static final class AlreadyCompleted extends AsyncWork {
        static final AlreadyCompleted INSTANCE = new AlreadyCompleted();
        private static final CompletableFuture<Object> DONE = CompletableFuture.completedFuture(Work.RESULT);

        @Override
        public CompletionStage<Object> get() {
            return DONE;
        }
    }
}
