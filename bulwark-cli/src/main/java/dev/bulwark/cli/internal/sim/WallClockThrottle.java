package dev.bulwark.cli.internal.sim;

import java.util.function.LongSupplier;

/**
 * Passes a virtual-time run's progress on at most once per interval of wall-clock time (and always its end). A
 * virtual run samples ten times per virtual second but computes hundreds of virtual seconds per wall second: a
 * printer that shows a line per virtual second would flood the terminal, and one that showed nothing left a 300 s
 * run silent for 8 s. Called on the simulation thread only, so it needs no synchronization.
 */
final class WallClockThrottle implements ProgressListener {

    private final ProgressListener delegate;
    private final long intervalNanos;
    private final LongSupplier wallClock;
    private long lastPassedAt;
    private boolean passedAny;

    /**
     * Creates the throttle.
     *
     * @param delegate told the progress that passes
     * @param intervalNanos the least wall-clock time between two passed samples
     * @param wallClock reads the wall clock in nanoseconds ({@code System::nanoTime}; tests pass their own)
     */
    WallClockThrottle(ProgressListener delegate, long intervalNanos, LongSupplier wallClock) {
        this.delegate = delegate;
        this.intervalNanos = intervalNanos;
        this.wallClock = wallClock;
    }

    @Override
    public void progress(Progress progress) {
        long now = wallClock.getAsLong();
        if (progress.phase() == Progress.Phase.DONE || !passedAny || now - lastPassedAt >= intervalNanos) {
            passedAny = true;
            lastPassedAt = now;
            delegate.progress(progress);
        }
    }
}
