package dev.bulwark.cli.internal.sim;

import dev.bulwark.Priority;

/**
 * Makes one simulated call: through the bulkhead (if any) to the downstream, and records how it ended.
 * Implementations are thread-safe.
 */
interface CallLauncher extends AutoCloseable {

    /**
     * Makes a call. Never blocks the caller for longer than it takes to hand the call over.
     *
     * @param arrivalNanos when the call was due to arrive (its latency is measured from here)
     * @param workNanos the service time it asks of the downstream
     * @param afterOutcome run once the call has ended and been recorded, on whatever thread ended it; may be
     *     {@code null}
     */
    default void launch(long arrivalNanos, long workNanos, Runnable afterOutcome) {
        launch(arrivalNanos, workNanos, 0, null, afterOutcome);
    }

    /**
     * Makes a call of a {@link LoadSchedule}'s lane, with that lane's priority. Never blocks the caller for longer
     * than it takes to hand the call over.
     *
     * @param arrivalNanos when the call was due to arrive (its latency is measured from here)
     * @param workNanos the service time it asks of the downstream
     * @param lane the index of its lane in the schedule, told to the run's {@link CallObserver}; 0 without one
     * @param priority the call's priority, or {@code null} to draw it from the run's priority mix
     * @param afterOutcome run once the call has ended and been recorded, on whatever thread ended it; may be
     *     {@code null}
     */
    void launch(long arrivalNanos, long workNanos, int lane, Priority priority, Runnable afterOutcome);

    /**
     * Describes how calls are run, for reports.
     *
     * @return for example {@code callAsync} or {@code call on virtual threads}
     */
    String describe();

    /** Waits briefly for the launcher's threads to end once every call has ended. Never throws. */
    @Override
    void close();
}
