package dev.bulwark.cli.internal.sim;

import dev.bulwark.Ticker;
import java.util.SplittableRandom;

/**
 * Open-loop Poisson arrivals: exponential gaps with mean {@code 1 / rate}, drawn from a generator seeded with
 * the run's seed, so that a seed fixes the arrival times and each arrival's service time, and with them the
 * number of arrivals. When the machine is too busy to make a call on time, the call is made late but still
 * counts from its due time, and the schedule catches up: the arrivals stay those of the seed. With a
 * {@link LoadSchedule} the rate follows it ({@link ScheduledArrivals}).
 */
final class OpenLoopArrivals implements ArrivalProcess {

    private final Rate rate;
    private final Distribution serviceTime;
    private final long seed;
    private final Ticker ticker;
    private final RunMeasurements measurements;

    private final LoadSchedule schedule;
    private final ArrivalTrace trace;

    OpenLoopArrivals(ArrivalModel.OpenLoop model, Distribution serviceTime, long seed, Ticker ticker,
                     RunMeasurements measurements) {
        this.rate = model.rate();
        this.schedule = model.schedule();
        this.trace = model.trace();
        this.serviceTime = serviceTime;
        this.seed = seed;
        this.ticker = ticker;
        this.measurements = measurements;
    }

    @Override
    public void run(long startNanos, long windowNanos, CallLauncher launcher) {
        SplittableRandom root = new SplittableRandom(seed);
        SplittableRandom gaps = root.split();
        SplittableRandom services = root.split();
        if (schedule != null) {
            ScheduledArrivals scheduled = new ScheduledArrivals(schedule, trace, gaps, root.split(), windowNanos);
            for (long offset = scheduled.next(); offset >= 0; offset = scheduled.next()) {
                long work = serviceTime.sampleNanos(services);
                long due = startNanos + offset;
                if (!ArrivalProcess.parkUntil(ticker, due)) {
                    return;
                }
                measurements.arrivalLate(ticker.read() - due);
                launcher.launch(due, work, scheduled.lane(), scheduled.priority(), null);
            }
            return;
        }
        double meanGap = rate.meanIntervalNanos();
        double offset = 0;
        for (;;) {
            offset += meanGap * gaps.nextExponential();
            if (offset >= windowNanos) {
                return;
            }
            long work = serviceTime.sampleNanos(services);
            long due = startNanos + (long) offset;
            if (!ArrivalProcess.parkUntil(ticker, due)) {
                return;
            }
            measurements.arrivalLate(ticker.read() - due);
            launcher.launch(due, work, null);
        }
    }

    @Override
    public void close() {
        // Runs on the caller's thread; nothing to release.
    }
}
