package dev.bulwark.cli.internal.compare;

import dev.bulwark.cli.internal.sim.Distribution;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;

/**
 * One named situation of {@code bulwark compare}: a downstream (the simulator's processor-sharing model, degradation
 * 1) whose capacity may step during the run and which may slow down or pause now and then, arrivals (Poisson at a
 * multiple of the first capacity's throughput, Poisson switched on and off, or closed-loop clients that retry), a
 * service-time distribution, optional latency noise added outside the downstream (a network), and the limit every
 * adaptive limiter starts at. Calls are not queued; a call not answered within {@link #CLIENT_TIMEOUT} is given up
 * by its client and counts as a drop (the downstream still finishes its work). Immutable.
 *
 * @param name the name {@code --scenario} takes
 * @param description one line for reports
 * @param capacity the downstream's capacity at the start
 * @param load arrivals as a multiple of what {@code capacity} serves (1.5: 50% more than it can serve); for
 *     closed-loop clients, what they would offer if every call were answered at once, for the description only
 * @param startLimit where adaptive limiters start
 * @param serviceTime the work per call
 * @param steps capacity changes during the run, in time order
 * @param noise latency added to each call outside the downstream, or {@code null}
 * @param slowPeriods periods in which the downstream slows down or pauses, or {@code null}
 * @param bursts an on/off switch on the arrivals, or {@code null} for steady Poisson arrivals
 * @param clients closed-loop clients that retry, instead of open-loop arrivals, or {@code null}
 */
public record CompareScenario(String name, String description, int capacity, double load, int startLimit,
                              Distribution serviceTime, List<CapacityStep> steps, Distribution noise,
                              SlowPeriods slowPeriods, OnOff bursts, RetryingClients clients) {

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
     * Correlated slow periods, as a garbage-collection pause or a noisy neighbour makes: every few seconds
     * (the gap between two starts is uniform between half and one and a half times {@code everySeconds}) the
     * downstream runs at {@code speed} times its speed for a time uniform between {@code shortestSeconds} and
     * {@code longestSeconds}. Drawn from the seed, the same for every limiter.
     *
     * @param everySeconds the mean gap between the starts of two slow periods
     * @param shortestSeconds the shortest slow period
     * @param longestSeconds the longest slow period
     * @param speed the fraction of the normal speed during a slow period: 0 pauses, 0.1 slows to a tenth
     */
    public record SlowPeriods(double everySeconds, double shortestSeconds, double longestSeconds, double speed) {
    }

    /**
     * Bursty arrivals: an on/off-modulated Poisson process. On and off phases alternate with exponentially
     * distributed lengths of the given means; arrivals come only while on, at the rate that keeps the scenario's
     * mean rate over the run.
     *
     * @param onSeconds the mean length of an on phase
     * @param offSeconds the mean length of an off phase
     */
    public record OnOff(double onSeconds, double offSeconds) {
        /** Returns the long-run share of time that is on. @return a fraction */
        public double onShare() {
            return onSeconds / (onSeconds + offSeconds);
        }
    }

    /**
     * Closed-loop clients that retry: each makes one call at a time, thinks for an exponential time of mean
     * {@code thinkMillis} after a call that was answered or finally given up, and retries a refused or timed-out
     * call after an exponential backoff of mean {@code backoffMillis}, up to {@code retries} times. Refusals come
     * back at once, so an overloaded or over-cautious limiter sees its refusals return as load: a retry storm.
     *
     * @param count the number of clients
     * @param thinkMillis the mean think time
     * @param retries retries per call
     * @param backoffMillis the mean wait before a retry
     */
    public record RetryingClients(int count, double thinkMillis, int retries, double backoffMillis) {
    }

    /**
     * A scenario with steady Poisson arrivals, no slow periods and no retrying clients.
     *
     * @param name the name {@code --scenario} takes
     * @param description one line for reports
     * @param capacity the downstream's capacity at the start
     * @param load arrivals as a multiple of what {@code capacity} serves
     * @param startLimit where adaptive limiters start
     * @param serviceTime the work per call
     * @param steps capacity changes during the run, in time order
     * @param noise latency added to each call outside the downstream, or {@code null}
     */
    public CompareScenario(String name, String description, int capacity, double load, int startLimit,
                           Distribution serviceTime, List<CapacityStep> steps, Distribution noise) {
        this(name, description, capacity, load, startLimit, serviceTime, steps, noise, null, null, null);
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

    private static final Duration MEAN_20MS = Duration.ofMillis(20);

    /**
     * The wider family of issue 41, which {@code --grid} sweeps: service-time shapes, fast/slow mixtures, slow
     * periods and pauses, bursty arrivals, retrying clients, small and large capacities, light and heavy loads,
     * and capacity steps up and down. Each has a mean service time of 20 ms, so that only the named property
     * differs from {@code grid-exp}; adaptive limiters start at 5 unless a step is measured, where they start at the
     * first capacity.
     */
    private static final List<CompareScenario> FAMILY = List.of(
            family("grid-exp", "exponential service", 20, 1.5, EXP_20MS),
            family("grid-lognormal-s1", "lognormal service, sigma 1", 20, 1.5, logNormal(1.0)),
            family("grid-lognormal-s1.5", "lognormal service, sigma 1.5", 20, 1.5, logNormal(1.5)),
            family("grid-lognormal-s2", "lognormal service, sigma 2", 20, 1.5, logNormal(2.0)),
            family("grid-pareto-a1.5", "Pareto service, shape 1.5", 20, 1.5, new Distribution.Pareto(MEAN_20MS,
                    1.5)),
            family("grid-pareto-a2", "Pareto service, shape 2", 20, 1.5, new Distribution.Pareto(MEAN_20MS, 2.0)),
            family("grid-pareto-a3", "Pareto service, shape 3", 20, 1.5, new Distribution.Pareto(MEAN_20MS, 3.0)),
            family("grid-mix-5x-1", "fast/slow mixture, slow 5x, 1% slow", 20, 1.5, mix(5, 0.01)),
            family("grid-mix-5x-50", "fast/slow mixture, slow 5x, 50% slow", 20, 1.5, mix(5, 0.50)),
            family("grid-mix-10x-10", "fast/slow mixture, slow 10x, 10% slow", 20, 1.5, mix(10, 0.10)),
            family("grid-mix-50x-1", "fast/slow mixture, slow 50x, 1% slow", 20, 1.5, mix(50, 0.01)),
            family("grid-mix-50x-10", "fast/slow mixture, slow 50x, 10% slow", 20, 1.5, mix(50, 0.10)),
            family("grid-mix-50x-50", "fast/slow mixture, slow 50x, 50% slow", 20, 1.5, mix(50, 0.50)),
            withSlowPeriods("grid-slow10-100ms", "slows to a tenth for 100ms every ~3s",
                    new SlowPeriods(3, 0.1, 0.1, 0.1)),
            withSlowPeriods("grid-slow10-500ms", "slows to a tenth for 100-500ms every ~3s",
                    new SlowPeriods(3, 0.1, 0.5, 0.1)),
            withSlowPeriods("grid-pause-100ms", "pauses for 100ms every ~3s", new SlowPeriods(3, 0.1, 0.1, 0)),
            withSlowPeriods("grid-pause-500ms", "pauses for 100-500ms every ~3s", new SlowPeriods(3, 0.1, 0.5, 0)),
            new CompareScenario("grid-burst-1s", "capacity 20, 1.5x load on average, on/off arrivals (on ~1s, off "
                    + "~1s), start 5", 20, 1.5, 5, EXP_20MS, List.of(), null, null, new OnOff(1, 1), null),
            new CompareScenario("grid-burst-200ms", "capacity 20, 1.5x load on average, on/off arrivals (on "
                    + "~200ms, off ~200ms), start 5", 20, 1.5, 5, EXP_20MS, List.of(), null, null,
                    new OnOff(0.2, 0.2), null),
            new CompareScenario("grid-retry-storm", "capacity 20, 200 closed-loop clients (think ~100ms) retrying "
                    + "up to 3 times after ~10ms, start 5", 20, 1.67, 5, EXP_20MS, List.of(), null, null, null,
                    new RetryingClients(200, 100, 3, 10)),
            new CompareScenario("grid-retry-storm-5x", "capacity 20, 600 closed-loop clients (think ~100ms) "
                    + "retrying up to 3 times after ~10ms, start 5", 20, 5, 5, EXP_20MS, List.of(), null, null, null,
                    new RetryingClients(600, 100, 3, 10)),
            family("grid-c2", "capacity 2, start 5 (above)", 2, 1.5, EXP_20MS),
            family("grid-c100", "capacity 100", 100, 1.5, EXP_20MS),
            family("grid-c500", "capacity 500", 500, 1.5, EXP_20MS),
            family("grid-load0.3", "0.3x load", 20, 0.3, EXP_20MS),
            family("grid-load5", "5x load", 20, 5, EXP_20MS),
            step("grid-step-up-2x", 20, 40),
            step("grid-step-up-4x", 20, 80),
            step("grid-step-down-2x", 40, 20),
            step("grid-step-down-4x", 80, 20));

    private static CompareScenario family(String name, String what, int capacity, double load,
                                          Distribution serviceTime) {
        return new CompareScenario(name, String.format(Locale.ROOT, "capacity %d, %sx load, %s (mean 20ms), start 5",
                capacity, load == Math.rint(load) ? String.valueOf((int) load) : String.valueOf(load),
                what.startsWith("capacity") ? "exponential service" : what), capacity, load, 5, serviceTime,
                List.of(), null);
    }

    private static CompareScenario withSlowPeriods(String name, String what, SlowPeriods periods) {
        return new CompareScenario(name, "capacity 20, 1.5x load, exponential service (mean 20ms), downstream "
                + what + ", start 5", 20, 1.5, 5, EXP_20MS, List.of(), null, periods, null, null);
    }

    /** A step at half the run from {@code from} to {@code to}, with arrivals at 1.5 times the larger capacity. */
    private static CompareScenario step(String name, int from, int to) {
        return new CompareScenario(name, "capacity " + from + " -> " + to + " at 1/2, 1.5x load of " + Math.max(from,
                to) + ", start " + from, from, 1.5 * Math.max(from, to) / from, from, EXP_20MS,
                List.of(new CapacityStep(0.5, to)), null);
    }

    /** Lognormal with a mean of 20 ms and the given sigma (of the logarithm). */
    private static Distribution logNormal(double sigma) {
        double median = 20e6 / Math.exp(sigma * sigma / 2);
        double p99 = median * Math.exp(2.3263478740408408 * sigma);
        return new Distribution.LogNormal(Duration.ofNanos(Math.round(median)), Duration.ofNanos(Math.round(p99)));
    }

    private static Distribution mix(double ratio, double slowShare) {
        return Distribution.Mixture.ofMean(MEAN_20MS, ratio, slowShare);
    }

    /**
     * Returns every named scenario of the default set (issue 15's table and more).
     *
     * @return the scenarios, in report order
     */
    public static List<CompareScenario> all() {
        return ALL;
    }

    /**
     * Returns the wider family that {@code --grid} sweeps.
     *
     * @return the scenarios, in report order
     */
    public static List<CompareScenario> grid() {
        return FAMILY;
    }

    /**
     * Finds a scenario by name.
     *
     * @param name its name, any case
     * @return the scenario
     * @throws IllegalArgumentException when no scenario has that name, listing the default set's names
     */
    public static CompareScenario named(String name) {
        for (List<CompareScenario> set : List.of(ALL, FAMILY)) {
            for (CompareScenario scenario : set) {
                if (scenario.name().equals(name.trim().toLowerCase(Locale.ROOT))) {
                    return scenario;
                }
            }
        }
        StringBuilder names = new StringBuilder();
        for (CompareScenario scenario : ALL) {
            names.append(names.length() == 0 ? "" : ", ").append(scenario.name());
        }
        throw new IllegalArgumentException("unknown scenario '" + name + "'; expected one of " + names
                + ", or one of --grid's (grid-exp, grid-mix-50x-10, ...; see --help)");
    }
}
