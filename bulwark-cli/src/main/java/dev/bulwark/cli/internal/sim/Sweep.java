package dev.bulwark.cli.internal.sim;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.TreeSet;

/**
 * Runs the same scenario (same seed, so the same arrivals and service times) once per bulkhead setting of a grid
 * of limits and queue sizes, smallest first, and finds the smallest setting that meets the targets.
 */
public final class Sweep {

    private final SimulationSettings scenario;
    private final List<BulkheadSettings> grid;
    private final SweepTargets targets;

    /**
     * Prepares a sweep.
     *
     * @param scenario the scenario; its bulkhead is replaced by each setting of the grid
     * @param limits the limits to try, each at least 1
     * @param queues the queue sizes to try, each at least 0
     * @param maxWait the maximum wait of every setting, or {@code null} for none
     * @param targets what to look for
     * @throws IllegalArgumentException when a list is empty or holds a value out of range
     * @throws NullPointerException when an argument other than {@code maxWait} is {@code null}
     */
    public Sweep(SimulationSettings scenario, List<Integer> limits, List<Integer> queues, Duration maxWait,
                 SweepTargets targets) {
        this.scenario = Objects.requireNonNull(scenario, "scenario");
        this.targets = Objects.requireNonNull(targets, "targets");
        if (limits.isEmpty() || queues.isEmpty()) {
            throw new IllegalArgumentException("limits and queues must not be empty but were " + limits + " and "
                    + queues);
        }
        List<BulkheadSettings> settings = new ArrayList<>();
        for (int limit : new TreeSet<>(limits)) {
            for (int queue : new TreeSet<>(queues)) {
                settings.add(new BulkheadSettings(limit, queue, maxWait));
            }
        }
        this.grid = List.copyOf(settings);
    }

    /**
     * Returns the settings the sweep runs, in order: by limit, then by queue, smallest first.
     *
     * @return the grid
     */
    public List<BulkheadSettings> grid() {
        return grid;
    }

    /**
     * Runs every setting in turn. Takes the scenario's duration plus drain per setting.
     *
     * @param observer told before and after each run
     * @return the results
     */
    public SweepResult run(Observer observer) {
        List<SweepResult.Row> rows = new ArrayList<>();
        for (int i = 0; i < grid.size(); i++) {
            BulkheadSettings setting = grid.get(i);
            SimulationSettings settings = scenario.toBuilder().bulkhead(setting).build();
            SimulationResult result = new Simulation(settings).run(observer.starting(i, grid.size(), setting));
            SweepResult.Row row = new SweepResult.Row(result, targets.metBy(result));
            rows.add(row);
            observer.finished(i, grid.size(), row);
        }
        return new SweepResult(scenario, targets, rows);
    }

    /** Follows a sweep's progress. */
    public interface Observer {

        /**
         * A run is about to start.
         *
         * @param index its position, from 0
         * @param total the number of runs
         * @param setting its bulkhead setting
         * @return the progress listener for this run
         */
        ProgressListener starting(int index, int total, BulkheadSettings setting);

        /**
         * A run has finished.
         *
         * @param index its position, from 0
         * @param total the number of runs
         * @param row its result
         */
        void finished(int index, int total, SweepResult.Row row);
    }
}
