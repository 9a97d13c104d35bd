package dev.bulwark.cli.internal.sim;

import java.util.List;
import java.util.Optional;

/**
 * The runs of a sweep, in grid order, and the smallest setting that met the targets. Immutable.
 *
 * @param scenario the scenario every run shared (its bulkhead is not used)
 * @param targets what the sweep looked for
 * @param rows one per setting, by limit then queue, smallest first
 */
public record SweepResult(SimulationSettings scenario, SweepTargets targets, List<Row> rows) {

    /**
     * Copies the rows.
     *
     * @throws NullPointerException when an argument is {@code null}
     */
    public SweepResult {
        rows = List.copyOf(rows);
    }

    /**
     * Returns the first row, in grid order, that met every target: the smallest limit, then the smallest queue.
     *
     * @return the row, or empty when there are no targets or none met them
     */
    public Optional<Row> recommended() {
        if (!targets.any()) {
            return Optional.empty();
        }
        return rows.stream().filter(Row::meetsTargets).findFirst();
    }

    /**
     * One setting's run.
     *
     * @param result the run
     * @param meetsTargets whether it met every target given
     */
    public record Row(SimulationResult result, boolean meetsTargets) {

        /**
         * Returns the run's bulkhead setting.
         *
         * @return the setting
         */
        public BulkheadSettings setting() {
            return result.settings().bulkhead().orElseThrow();
        }
    }
}
