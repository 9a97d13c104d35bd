package dev.bulwark.benchmarks.report;

import java.util.Objects;

/**
 * One of issue #4's performance targets, judged on a run. Immutable.
 *
 * @param description the target as the issue states it
 * @param status whether the run meets it
 * @param figure the measured figure the judgement rests on
 */
public record Target(String description, Status status, String figure) {

    /** Whether a target is met. */
    public enum Status {
        /** The run meets the target. */
        MET,
        /** The run misses the target. */
        MISSED,
        /** The run lacks a figure the target needs. */
        UNKNOWN
    }

    /**
     * Checks the components.
     *
     * @throws NullPointerException when a component is {@code null}
     */
    public Target {
        Objects.requireNonNull(description, "description");
        Objects.requireNonNull(status, "status");
        Objects.requireNonNull(figure, "figure");
    }
}
