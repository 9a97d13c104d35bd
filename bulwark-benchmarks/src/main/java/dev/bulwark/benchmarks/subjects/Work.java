package dev.bulwark.benchmarks.subjects;

import dev.bulwark.ThrowingSupplier;
import java.util.function.Supplier;

/**
 * A synchronous operation that every implementation accepts as it is, with no adapter object per call: it is at
 * once Bulwark's {@link ThrowingSupplier}, the JDK's {@link Supplier} (Resilience4j) and Failsafe's
 * {@link dev.failsafe.function.CheckedSupplier}. Scenarios extend it with what the operation does.
 */
public abstract class Work implements ThrowingSupplier<Object, RuntimeException>, Supplier<Object>,
        dev.failsafe.function.CheckedSupplier<Object> {

    /** What {@link #returningResult()} returns; never a refusal of any implementation. */
    public static final Object RESULT = new Object() {
        @Override
        public String toString() {
            return "RESULT";
        }
    };

    /**
     * Runs the operation.
     *
     * @return its result
     */
    @Override
    public abstract Object get();

    /**
     * Returns an operation that does nothing but return {@link #RESULT}: the scenarios that measure the bulkhead
     * alone use it.
     *
     * @return the shared operation
     */
    public static Work returningResult() {
        return ReturningResult.INSTANCE;
    }

    private static final class ReturningResult extends Work {
        static final ReturningResult INSTANCE = new ReturningResult();

        @Override
        public Object get() {
            return RESULT;
        }
    }
}
