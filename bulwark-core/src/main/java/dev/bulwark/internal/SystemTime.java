package dev.bulwark.internal;

import dev.bulwark.Ticker;

/**
 * The one system ticker, so that a policy can tell real time from a ticker a test set: a synchronous waiter parks
 * on real time alone only under this one (see {@code bulkhead.Waiter.Sync}).
 */
public final class SystemTime {

    /** {@link System#nanoTime()}; what {@link Ticker#system()} returns. */
    public static final Ticker TICKER = System::nanoTime;

    private SystemTime() {
    }
}
