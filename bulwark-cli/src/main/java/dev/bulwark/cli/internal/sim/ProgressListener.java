package dev.bulwark.cli.internal.sim;

/**
 * Receives a run's {@link Progress} at every sample (by default ten times a second), on the sampling thread.
 * Implementations decide how often to show it and must be quick.
 */
@FunctionalInterface
public interface ProgressListener {

    /**
     * Receives the run's state.
     *
     * @param progress the state at this sample
     */
    void progress(Progress progress);

    /**
     * Returns a listener that ignores everything.
     *
     * @return a no-op listener
     */
    static ProgressListener none() {
        return progress -> { };
    }
}
