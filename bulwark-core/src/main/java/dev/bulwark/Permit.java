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
     * Returns whether {@link #close()} has been called.
     *
     * @return {@code true} once the slot has been released through this permit
     */
    boolean isReleased();
}
