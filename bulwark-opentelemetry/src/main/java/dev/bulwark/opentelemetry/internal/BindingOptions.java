package dev.bulwark.opentelemetry.internal;

import dev.bulwark.Ticker;
import dev.bulwark.internal.stats.TimingOptions;
import dev.bulwark.internal.stats.WindowedHistogram;
import dev.bulwark.internal.stats.WindowedMax;
import java.time.Duration;
import java.util.Objects;

/**
 * How a {@code BulwarkTelemetry} binds bulkheads: whether leases are timed exactly, and the window over which the
 * maxima and percentiles gauges are kept, on which clock, and whether waits and refusals become span events.
 * Immutable.
 */
public final class BindingOptions {

    /** Exact or sampled timing and the window: the same for both back ends (core's). */
    private final TimingOptions timing;
    private final Ticker ticker;
    private final boolean spanEvents;

    /**
     * Creates the options.
     *
     * @param exactTiming whether bulkheads time every lease instead of a sample
     * @param expiry how long the window of maxima and percentiles is (checked)
     * @param bufferLength how many buffers the window rotates through (checked)
     * @param ticker the clock the windows rotate on
     * @throws IllegalArgumentException when {@code expiry} or {@code bufferLength} is out of range
     */
    public BindingOptions(boolean exactTiming, Duration expiry, int bufferLength, Ticker ticker) {
        this(exactTiming, expiry, bufferLength, ticker, false);
    }

    /**
     * Creates the options, choosing whether waits and refusals are added to the current span as events.
     *
     * @param exactTiming whether bulkheads time every lease instead of a sample
     * @param expiry how long the window of maxima and percentiles is (checked)
     * @param bufferLength how many buffers the window rotates through (checked)
     * @param ticker the clock the windows rotate on
     * @param spanEvents whether a wait or a refusal adds an event to the current span
     * @throws IllegalArgumentException when {@code expiry} or {@code bufferLength} is out of range
     */
    public BindingOptions(boolean exactTiming, Duration expiry, int bufferLength, Ticker ticker,
                          boolean spanEvents) {
        this.spanEvents = spanEvents;
        this.timing = new TimingOptions(exactTiming, expiry, bufferLength);
        this.ticker = Objects.requireNonNull(ticker, "ticker");
    }

    TimingOptions timing() {
        return timing;
    }

    boolean spanEvents() {
        return spanEvents;
    }

    WindowedMax windowedMax() {
        return timing.windowedMax(ticker::read);
    }

    WindowedHistogram windowedHistogram() {
        return timing.windowedHistogram(ticker::read);
    }
}
