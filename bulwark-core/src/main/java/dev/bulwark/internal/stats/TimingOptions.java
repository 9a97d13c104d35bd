package dev.bulwark.internal.stats;

import java.time.Duration;
import java.util.function.LongSupplier;

/**
 * How a metrics binding times a bulkhead's calls, the same for both back ends: whether every execution is timed or
 * a sample ({@link TimingSampler}), and the window over which maxima and percentiles are kept (like Micrometer's
 * {@code distributionStatisticExpiry} and {@code distributionStatisticBufferLength}). It makes the windowed
 * statistics each back end keeps, on the clock the back end chooses (Micrometer's registry clock, OpenTelemetry's
 * ticker). Immutable, thread-safe.
 */
public final class TimingOptions {

    private final boolean exactTiming;
    private final Duration expiry;
    private final int bufferLength;

    /**
     * Creates the options.
     *
     * @param exactTiming whether bulkheads time every execution instead of a sample
     * @param expiry how long the window of maxima and percentiles is
     * @param bufferLength how many buffers the window rotates through
     * @throws NullPointerException when {@code expiry} is {@code null}
     * @throws IllegalArgumentException when {@code expiry} is not positive or {@code bufferLength} is not between 1
     *     and {@value TimeWindow#MAX_BUFFER_LENGTH}
     */
    public TimingOptions(boolean exactTiming, Duration expiry, int bufferLength) {
        this.exactTiming = exactTiming;
        this.expiry = TimeWindow.checkExpiry(expiry);
        this.bufferLength = TimeWindow.checkBufferLength(bufferLength);
    }

    /**
     * Returns whether bulkheads time every execution.
     *
     * @return {@code true} for exact timing
     */
    public boolean exactTiming() {
        return exactTiming;
    }

    /**
     * Returns a new sampler: every call timed with exact timing, else a sample sized from the call rate.
     *
     * @return the sampler of one bulkhead
     */
    public TimingSampler sampler() {
        return exactTiming ? TimingSampler.exact() : TimingSampler.adaptive();
    }

    /**
     * Returns new statistics with a windowed max only.
     *
     * @param clock the clock the window rotates on, in nanoseconds
     * @return the statistics
     */
    public TimerStatistics maxOnly(LongSupplier clock) {
        return TimerStatistics.maxOnly(clock, expiry, bufferLength);
    }

    /**
     * Returns new statistics with a windowed max and percentiles.
     *
     * @param clock the clock the window rotates on, in nanoseconds
     * @return the statistics
     */
    public TimerStatistics withPercentiles(LongSupplier clock) {
        return TimerStatistics.withPercentiles(clock, expiry, bufferLength);
    }

    /**
     * Returns a new windowed maximum.
     *
     * @param clock the clock the window rotates on, in nanoseconds
     * @return the maximum
     */
    public WindowedMax windowedMax(LongSupplier clock) {
        return new WindowedMax(clock, expiry, bufferLength);
    }

    /**
     * Returns a new windowed histogram.
     *
     * @param clock the clock the window rotates on, in nanoseconds
     * @return the histogram
     */
    public WindowedHistogram windowedHistogram(LongSupplier clock) {
        return new WindowedHistogram(clock, expiry, bufferLength);
    }
}
