package dev.bulwark.cli.internal.compare;

import dev.bulwark.cli.internal.sim.Distribution;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;

/**
 * One named situation of {@code bulwark compare}: a downstream (the simulator's processor-sharing model, degradation
 * 1) whose capacity may step during the run, Poisson arrivals at a multiple of the first capacity's throughput, a
 * service-time distribution, optional latency noise added outside the downstream (a network), and the limit every
 * adaptive limiter starts at. Calls are not queued; a call not answered within {@link #CLIENT_TIMEOUT} is given up
 * by its client and counts as a drop (the downstream still finishes its work). Immutable.
 *
 * @param name the name {@code --scenario} takes
 * @param description one line for reports
 * @param capacity the downstream's capacity at the start
 * @param load arrivals as a multiple of what {@code capacity} serves (1.5: 50% more than it can serve)
 * @param startLimit where adaptive limiters start
 * @param serviceTime the work per call
 * @param steps capacity changes during the run, in time order
 * @param noise latency added to each call outside the downstream, or {@code null}
 */
public record CompareScenario(String name, String description, int capacity, double load, int startLimit,
                              Distribution serviceTime, List<CapacityStep> steps, Distribution noise) {

    /** How long a client waits for an answer before giving up (a drop for the limiter). */
    public static final Duration CLIENT_TIMEOUT = Duration.ofSeconds(1);

    /**
     * A change of capacity.
     *
     * @param atFraction when, as a fraction of the run's length (0 to 1)
     * @param capacity the new capacity, at least 1
     */
    public record CapacityStep(double atFraction, int capacity) {
    }

    /**
     * Checks the fields.
     *
     * @throws IllegalArgumentException when a number is out of range
     */
    public CompareScenario {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(serviceTime, "serviceTime");
        steps = List.copyOf(steps);
        if (capacity < 1 || startLimit < 1 || !(load > 0)) {
            throw new IllegalArgumentException("capacity, startLimit and load must be positive in " + name);
        }
    }

    /**
     * Returns the noise added outside the downstream.
     *
     * @return the distribution, or empty for none
     */
    public Optional<Distribution> noiseIfAny() {
        return Optional.ofNullable(noise);
    }

    /**
     * Returns the arrival rate.
     *
     * @return calls per second
     */
    public double ratePerSecond() {
        return load * capacity / (serviceTime.meanNanos() / 1e9);
    }

    /**
     * Returns every capacity the run has, the first one first.
     *
     * @return the capacities
     */
    public int[] capacities() {
        int[] all = new int[steps.size() + 1];
        all[0] = capacity;
        for (int i = 0; i < steps.size(); i++) {
            all[i + 1] = steps.get(i).capacity();
        }
        return all;
    }

    private static final Distribution EXP_20MS = new Distribution.Exponential(Duration.ofMillis(20));

    /** The scenarios of issue 15's table, and more; in the order reports show them. */
    private static final List<CompareScenario> ALL = List.of(
            new CompareScenario("c20-start5", "capacity 20, 1.5x load, start 5", 20, 1.5, 5, EXP_20MS,
                    List.of(), null),
            new CompareScenario("c20-start60", "capacity 20, 1.5x load, start 60 (far above)", 20, 1.5, 60,
                    EXP_20MS, List.of(), null),
            new CompareScenario("c20-start20", "capacity 20, 1.5x load, start 20", 20, 1.5, 20, EXP_20MS,
                    List.of(), null),
            new CompareScenario("c20-steps", "capacity 20 -> 10 -> 30 (at 1/3 and 2/3), 1500 calls/s, start 20", 20,
                    1.5, 20, EXP_20MS, List.of(new CapacityStep(1.0 / 3, 10), new CapacityStep(2.0 / 3, 30)), null),
            new CompareScenario("c20-underload", "capacity 20, 0.6x load, start 20", 20, 0.6, 20, EXP_20MS,
                    List.of(), null),
            new CompareScenario("c20-lognormal", "capacity 20, 1.5x load, lognormal service (sigma 1, mean 20ms)",
                    20, 1.5, 5, new Distribution.LogNormal(Duration.ofNanos(12_130_613),
                    Duration.ofNanos(124_238_000)), List.of(), null),
            new CompareScenario("c20-pareto", "capacity 20, 1.5x load, Pareto service (shape 2.5, mean 20ms)", 20,
                    1.5, 5, new Distribution.Pareto(Duration.ofMillis(20), 2.5), List.of(), null),
            new CompareScenario("c20-noise", "capacity 20, 1.5x load, + exp:10ms of network latency per call", 20,
                    1.5, 5, EXP_20MS, List.of(), new Distribution.Exponential(Duration.ofMillis(10))),
            new CompareScenario("c40", "capacity 40, 1.5x load, start 20 (below)", 40, 1.5, 20, EXP_20MS, List.of(),
                    null),
            new CompareScenario("c6", "capacity 6, 1.5x load, start 20 (above)", 6, 1.5, 20, EXP_20MS, List.of(),
                    null));

    /**
     * Returns every named scenario.
     *
     * @return the scenarios, in report order
     */
    public static List<CompareScenario> all() {
        return ALL;
    }

    /**
     * Finds a scenario by name.
     *
     * @param name its name, any case
     * @return the scenario
     * @throws IllegalArgumentException when no scenario has that name, listing the names
     */
    public static CompareScenario named(String name) {
        for (CompareScenario scenario : ALL) {
            if (scenario.name().equals(name.trim().toLowerCase(Locale.ROOT))) {
                return scenario;
            }
        }
        StringBuilder names = new StringBuilder();
        for (CompareScenario scenario : ALL) {
            names.append(names.length() == 0 ? "" : ", ").append(scenario.name());
        }
        throw new IllegalArgumentException("unknown scenario '" + name + "'; expected one of " + names);
    }
}
