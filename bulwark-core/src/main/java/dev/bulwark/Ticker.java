package dev.bulwark;

/**
 * A source of monotonic time in nanoseconds, as {@link System#nanoTime()}. Policies read time only through
 * a ticker so that tests can drive waits and timeouts with a fake one.
 *
 * <p>Implementations must be thread-safe and must never go backwards.
 */
@FunctionalInterface
public interface Ticker {

    /**
     * Returns the current time in nanoseconds from an arbitrary origin.
     *
     * @return the time, comparable only with other readings of the same ticker
     */
    long read();

    /**
     * Returns the ticker backed by {@link System#nanoTime()}.
     *
     * @return the system ticker, the same instance at every call
     */
    static Ticker system() {
        return dev.bulwark.internal.SystemTime.TICKER;
    }
}
