package dev.bulwark.lab;

import java.time.Duration;
import java.util.List;

/**
 * The lab's experiments, one per command: each is the same measurement of the service followed by one run per guard
 * of an open-loop schedule of three stages. The second stage is the one under stress, and the one a report's table
 * describes; the third is where the service recovers.
 */
enum Scenario {
    /**
     * 2x overload on the database path: half the measured capacity (warm), twice it (surge), half again (recovery).
     */
    OVERLOAD("overload"),
    /**
     * The database slows in the middle of a run: a steady 0.7x the measured capacity throughout, while during the
     * second stage a {@link DatabaseSlowdown} slows the database (competing heavy queries, or a held lock), then
     * stops.
     */
    SLOWDOWN("slowdown"),
    /**
     * Inbound shedding at the service's edge: critical requests at a steady {@link #CRITICAL_RATE} of the measured
     * capacity throughout, beside sheddable ones at 0.1x (warm), 2x (surge) and 0.1x again (recovery), once per
     * {@link EdgeMode}.
     */
    SHEDDING("shedding"),
    /**
     * 2x overload on the path to the second HTTP service ({@link RemoteService}, a fixed pool of workers): the
     * schedule of {@link #OVERLOAD}, requests to {@code /remote}.
     */
    REMOTE("remote");

    /** The steady rate of {@link #SLOWDOWN}, as a share of the measured capacity. */
    static final double SLOWDOWN_RATE = 0.7;
    /** The steady rate of {@link #SHEDDING}'s critical requests, as a share of the measured capacity. */
    static final double CRITICAL_RATE = 0.4;

    private final String command;

    Scenario(String command) {
        this.command = command;
    }

    /**
     * Returns the command that runs it, also the name of its report's files.
     *
     * @return a short name
     */
    String command() {
        return command;
    }

    /**
     * Returns which dependency its load reaches, for the reports.
     *
     * @return {@code "remote"} for {@link #REMOTE}, else {@code "database"}
     */
    String dependency() {
        return this == REMOTE ? "remote" : "database";
    }

    /**
     * Returns the route its load is sent to ({@link #SHEDDING}: the base its edge modes' routes resolve against).
     *
     * @return {@code /remote} for {@link #REMOTE}, else {@code /work}
     */
    String route() {
        return this == REMOTE ? "/remote" : "/work";
    }

    /**
     * Returns the schedule of one run.
     *
     * @param capacity the measured capacity, requests per second
     * @param quick the CI-sized schedule
     * @return three stages: before, under stress, after ({@link #SHEDDING}: the sheddable requests')
     */
    List<Stage> stages(double capacity, boolean quick) {
        return switch (this) {
            case OVERLOAD, REMOTE -> List.of(
                    Stage.plateau("warm 0.5x", capacity / 2, Duration.ofSeconds(quick ? 3 : 10)),
                    Stage.plateau("surge 2x", 2 * capacity, Duration.ofSeconds(quick ? 6 : 20)),
                    Stage.plateau("recovery 0.5x", capacity / 2, Duration.ofSeconds(quick ? 6 : 20)));
            case SLOWDOWN -> List.of(
                    Stage.plateau("before 0.7x", SLOWDOWN_RATE * capacity, Duration.ofSeconds(quick ? 4 : 10)),
                    Stage.plateau("slow 0.7x", SLOWDOWN_RATE * capacity, Duration.ofSeconds(quick ? 8 : 20)),
                    Stage.plateau("after 0.7x", SLOWDOWN_RATE * capacity, Duration.ofSeconds(quick ? 8 : 20)));
            // Named by the total rate, the critical requests' included.
            case SHEDDING -> List.of(
                    Stage.plateau("warm 0.5x", 0.1 * capacity, Duration.ofSeconds(quick ? 3 : 10)),
                    Stage.plateau("surge 2.4x", 2 * capacity, Duration.ofSeconds(quick ? 6 : 20)),
                    Stage.plateau("recovery 0.5x", 0.1 * capacity, Duration.ofSeconds(quick ? 6 : 20)));
        };
    }

    /**
     * Returns the schedule of {@link #SHEDDING}'s critical requests: the stages of {@link #stages}, each at a steady
     * {@link #CRITICAL_RATE} of the capacity.
     *
     * @param capacity the measured capacity, requests per second
     * @param quick the CI-sized schedule
     * @return three stages, named and timed as {@link #stages}'s
     */
    List<Stage> criticalStages(double capacity, boolean quick) {
        return stages(capacity, quick).stream()
                .map(stage -> Stage.plateau(stage.name(), CRITICAL_RATE * capacity, stage.length())).toList();
    }
}
