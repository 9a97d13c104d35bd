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
     * second stage {@link CompetingQueries} run a heavy query beside the service, then stop.
     */
    SLOWDOWN("slowdown");

    /** The steady rate of {@link #SLOWDOWN}, as a share of the measured capacity. */
    static final double SLOWDOWN_RATE = 0.7;

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
     * Returns the schedule of one run.
     *
     * @param capacity the measured capacity, requests per second
     * @param quick the CI-sized schedule
     * @return three stages: before, under stress, after
     */
    List<Stage> stages(double capacity, boolean quick) {
        return switch (this) {
            case OVERLOAD -> List.of(
                    Stage.plateau("warm 0.5x", capacity / 2, Duration.ofSeconds(quick ? 3 : 10)),
                    Stage.plateau("surge 2x", 2 * capacity, Duration.ofSeconds(quick ? 6 : 20)),
                    Stage.plateau("recovery 0.5x", capacity / 2, Duration.ofSeconds(quick ? 6 : 20)));
            case SLOWDOWN -> List.of(
                    Stage.plateau("before 0.7x", SLOWDOWN_RATE * capacity, Duration.ofSeconds(quick ? 4 : 10)),
                    Stage.plateau("slow 0.7x", SLOWDOWN_RATE * capacity, Duration.ofSeconds(quick ? 8 : 20)),
                    Stage.plateau("after 0.7x", SLOWDOWN_RATE * capacity, Duration.ofSeconds(quick ? 8 : 20)));
        };
    }
}
