package dev.bulwark.cli.internal.sim;

import dev.bulwark.Ticker;
import java.util.concurrent.locks.LockSupport;

/** Generates a run's calls for the length of the arrival window. */
interface ArrivalProcess extends AutoCloseable {

    /**
     * Makes calls until the arrival window ends, then returns. Runs on the simulation's thread.
     *
     * @param startNanos when the run started
     * @param windowNanos how long calls arrive
     * @param launcher makes each call
     */
    void run(long startNanos, long windowNanos, CallLauncher launcher);

    /** Releases the process's threads, if any. Never throws. */
    @Override
    void close();

    /**
     * Creates the process for an arrival model.
     *
     * @param settings the run's settings
     * @param ticker the clock
     * @param measurements where open-loop arrivals record how late they were made
     * @return a new process
     */
    static ArrivalProcess of(SimulationSettings settings, Ticker ticker, RunMeasurements measurements) {
        ArrivalModel model = settings.arrivals();
        if (model instanceof ArrivalModel.OpenLoop) {
            return new OpenLoopArrivals((ArrivalModel.OpenLoop) model, settings.serviceTime(),
                    settings.seed(), ticker, measurements);
        }
        ArrivalModel.ClosedLoop closed = (ArrivalModel.ClosedLoop) model;
        return new ClosedLoopClients(closed.clients(), closed.thinkTime(), settings.serviceTime(), settings.seed(),
                ticker);
    }

    /**
     * Parks the calling thread until {@code deadline}.
     *
     * @return {@code false} when the thread was interrupted (its status is kept)
     */
    static boolean parkUntil(Ticker ticker, long deadline) {
        for (long remaining = deadline - ticker.read(); remaining > 0; remaining = deadline - ticker.read()) {
            LockSupport.parkNanos(remaining);
            if (Thread.currentThread().isInterrupted()) {
                return false;
            }
        }
        return true;
    }
}
