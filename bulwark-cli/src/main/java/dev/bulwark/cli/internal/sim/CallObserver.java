package dev.bulwark.cli.internal.sim;

/**
 * Told of every call of a run as it ends, with its lane, when it arrived, how it ended and how long it took: what a
 * report needs to split a run's figures by period (a schedule's stages) and by lane, which the run's own summary, one
 * histogram for the whole run, cannot give. Used by the lab (module {@code bulwark-lab}) to compare the simulator's
 * prediction with a real service stage by stage, and lane by lane.
 *
 * <p>In virtual time every call ends on the thread that runs the simulation; in real time calls end on several
 * threads (the downstream's scheduler, the common pool), so an observer used there must be thread-safe.
 */
@FunctionalInterface
public interface CallObserver {

    /** An observer that ignores every call. */
    CallObserver NONE = (lane, arrivalNanos, outcome, latencyNanos) -> { };

    /**
     * A call has ended. Called exactly once per call, after the run's own measurements have counted it.
     *
     * @param lane the index of the call's lane in the run's {@link LoadSchedule} (which tells apart calls whose
     *     lanes share a priority, or have none); 0 when the arrivals follow no schedule
     * @param arrivalNanos when the call was due to arrive, from the run's start (the moment its measurements were
     *     set up, which in virtual time is exactly the start)
     * @param outcome how it ended
     * @param latencyNanos from its due time to its end, whatever the outcome
     */
    void ended(int lane, long arrivalNanos, CallOutcome outcome, long latencyNanos);
}
