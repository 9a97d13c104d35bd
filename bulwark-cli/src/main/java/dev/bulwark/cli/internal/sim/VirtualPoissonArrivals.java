package dev.bulwark.cli.internal.sim;

import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;

/**
 * Poisson arrivals on a {@link VirtualClock}: exponential gaps with a given mean from the clock's zero, each arrival
 * running a task and then scheduling the next, until the end. One chain per arrival stream (a run's, or a tenant's);
 * only the gaps generator is drawn here, so the task may draw its own (service times) without moving the arrivals.
 *
 * <p>Not thread-safe: it runs on the virtual clock's thread, one arrival at a time.
 */
final class VirtualPoissonArrivals implements Runnable {

    private final VirtualClock clock;
    private final double meanGapNanos;
    private final SplittableRandom gaps;
    private final long endNanos;
    private final Runnable arrival;
    private double offset;

    /**
     * @param clock the virtual clock
     * @param meanGapNanos the mean gap between arrivals
     * @param gaps the generator of the gaps
     * @param endNanos no arrival at or after this virtual time
     * @param arrival what each arrival does, at its time
     */
    VirtualPoissonArrivals(VirtualClock clock, double meanGapNanos, SplittableRandom gaps, long endNanos,
                           Runnable arrival) {
        this.clock = clock;
        this.meanGapNanos = meanGapNanos;
        this.gaps = gaps;
        this.endNanos = endNanos;
        this.arrival = arrival;
    }

    /** Schedules the first arrival (none when it would come at or after the end). */
    void start() {
        next();
    }

    private void next() {
        offset += meanGapNanos * gaps.nextExponential();
        long due = (long) offset;
        if (due < endNanos) {
            clock.schedule(this, due - clock.read(), TimeUnit.NANOSECONDS);
        }
    }

    @Override
    public void run() {
        arrival.run();
        next();
    }
}
