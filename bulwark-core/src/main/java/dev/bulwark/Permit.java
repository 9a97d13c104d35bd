package dev.bulwark;

/**
 * A slot held in a bulkhead, for work that is not one lambda (a streamed response, a callback API). Obtained
 * from {@link Bulkhead#acquire()}, {@link Bulkhead#tryAcquire()} or {@link Bulkhead#acquireAsync()}; use it in
 * a try-with-resources block or close it from the callback that ends the work.
 *
 * <p>Thread-safe: {@link #close()} may be called from any thread, any number of times; only the first call
 * frees the slot.
 */
public interface Permit extends AutoCloseable {

    /**
     * Releases the slot. Idempotent: a second call does nothing and never frees a second slot. Never throws.
     */
    @Override
    void close();

    /**
     * Releases the slot and tells an adaptive bulkhead how the work went, so it can move its limit (see
     * {@link AdaptiveLimit}). A fixed bulkhead ignores the outcome. Idempotent like {@link #close()}: only the first
     * close of either kind counts.
     *
     * @param outcome how the work went
     * @throws NullPointerException when {@code outcome} is {@code null}
     */
    default void close(Outcome outcome) {
        java.util.Objects.requireNonNull(outcome, "outcome");
        close();
    }

    /**
     * Returns whether {@link #close()} has been called.
     *
     * @return {@code true} once the slot has been released through this permit
     */
    boolean isReleased();

    /** How the work done under a permit went, as far as the capacity of the protected resource is concerned. */
    enum Outcome {
        /** The resource served the work; its latency is a valid sample. {@link #close()} reports this. */
        SUCCESS,
        /** The resource was overloaded (a timeout, a 503, a rejection downstream): the limit should come down. */
        DROPPED,
        /** The outcome says nothing about capacity (a validation error, a cancellation): no sample. */
        IGNORED
    }
}
