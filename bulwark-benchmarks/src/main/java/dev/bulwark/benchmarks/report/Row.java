package dev.bulwark.benchmarks.report;

import java.util.Objects;
import java.util.Optional;

/**
 * One line of the comparison table: a subject in a scenario, its measurement if it was measured, and its ratios.
 * Immutable.
 *
 * @param scenario the scenario
 * @param subject the subject
 * @param measurement the measurement; empty when the subject was not measured
 * @param timesFloor the score divided by the floor's score, {@code NaN} when either is missing
 * @param timesBulwark the score divided by Bulwark's score, {@code NaN} when either is missing
 * @param note why it was not measured, or what else the reader must know (floor, FIFO); may be empty
 */
public record Row(Scenario scenario, String subject, Optional<Measurement> measurement, double timesFloor,
                  double timesBulwark, String note) {

    /**
     * Checks the components.
     *
     * @throws NullPointerException when a component is {@code null}
     */
    public Row {
        Objects.requireNonNull(scenario, "scenario");
        Objects.requireNonNull(subject, "subject");
        Objects.requireNonNull(measurement, "measurement");
        Objects.requireNonNull(note, "note");
    }
}
