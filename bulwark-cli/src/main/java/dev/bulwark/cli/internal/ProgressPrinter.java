package dev.bulwark.cli.internal;

import dev.bulwark.cli.internal.sim.Durations;
import dev.bulwark.cli.internal.sim.Progress;
import dev.bulwark.cli.internal.sim.ProgressListener;
import java.io.PrintWriter;
import java.util.Locale;

/**
 * Shows a run's progress on standard error: on a terminal one line rewritten in place four times a second;
 * elsewhere (a pipe, a CI log) one plain line per second. Called on the sampling thread only, then once on the
 * simulation thread after sampling stopped, so it needs no lock.
 */
final class ProgressPrinter implements ProgressListener {

    private static final long LIVE_REFRESH_NANOS = 250_000_000L;
    private static final long PLAIN_REFRESH_NANOS = 1_000_000_000L;

    private final PrintWriter err;
    private final boolean live;
    private final String prefix;
    private long lastPrintedAt = Long.MIN_VALUE;
    private boolean lineOpen;

    private ProgressPrinter(PrintWriter err, boolean live, String prefix) {
        this.err = err;
        this.live = live;
        this.prefix = prefix;
    }

    /**
     * Returns the listener for a {@code --progress} mode.
     *
     * @param mode the mode
     * @param err standard error
     * @param prefix put before each line (a sweep names the setting), may be empty
     * @return the listener
     */
    static ProgressListener create(ProgressMode mode, PrintWriter err, String prefix) {
        switch (mode) {
            case OFF:
                return ProgressListener.none();
            case LIVE:
                return new ProgressPrinter(err, true, prefix);
            case PLAIN:
                return new ProgressPrinter(err, false, prefix);
            default:
                return new ProgressPrinter(err, Terminal.isInteractive(), prefix);
        }
    }

    @Override
    public void progress(Progress progress) {
        if (progress.phase() == Progress.Phase.DONE) {
            if (lineOpen) {
                // Clear the live line so that the report starts on a clean screen.
                err.print("\r\u001b[K");
                err.flush();
                lineOpen = false;
            }
            return;
        }
        long elapsed = progress.elapsed().toNanos();
        long refresh = live ? LIVE_REFRESH_NANOS : PLAIN_REFRESH_NANOS;
        if (lastPrintedAt != Long.MIN_VALUE && elapsed - lastPrintedAt < refresh) {
            return;
        }
        lastPrintedAt = elapsed - elapsed % refresh;
        String line = prefix + describe(progress);
        if (live) {
            err.print("\r" + line + "\u001b[K");
            lineOpen = true;
        } else {
            err.println(line);
        }
        err.flush();
    }

    static String describe(Progress progress) {
        String clock = String.format(Locale.ROOT, "%5.1fs/%s", progress.elapsed().toNanos() / 1e9,
                Durations.format(progress.duration()));
        String phase = progress.phase() == Progress.Phase.DRAINING ? " draining" : "";
        return String.format(Locale.ROOT, "[%s%s] arrivals %,6.0f/s  in flight %,6d  queued %,5d  rejected %,6.0f/s"
                        + "  p99 %s", clock, phase, progress.arrivalsPerSecond(), progress.inFlight(),
                progress.queued(), progress.rejectionsPerSecond(), Durations.humanMillis(progress.p99Millis()));
    }
}
