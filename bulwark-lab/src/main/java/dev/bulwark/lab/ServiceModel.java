package dev.bulwark.lab;

import dev.bulwark.cli.internal.sim.ArrivalModel;
import dev.bulwark.cli.internal.sim.CallOutcome;
import dev.bulwark.cli.internal.sim.Distribution;
import dev.bulwark.cli.internal.sim.ExecutionMode;
import dev.bulwark.cli.internal.sim.ProgressListener;
import dev.bulwark.cli.internal.sim.Simulation;
import dev.bulwark.cli.internal.sim.SimulationResult;
import dev.bulwark.cli.internal.sim.SimulationSettings;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The simulator's downstream fitted to what the lab measured: the loaded dependency's path (the database's, or the
 * second HTTP service's) as the simulator's processor-sharing downstream ({@code --downstream-capacity},
 * {@code --degradation}, docs/simulator.md), with the dependency's time of a call alone as its service time: a
 * log-normal with the measured mean and spread ({@link #serviceTime()}), and the rest of a request's time (HTTP,
 * Tomcat, Spring; the probe's time per call with one client less the dependency's time) as a fixed overhead outside
 * it.
 *
 * <p>{@link #fit} picks the capacity and degradation, or the contention, whose simulated closed-loop probe (the same
 * numbers of clients, each thinking for the overhead between calls, in virtual time) comes closest to the measured
 * one. Immutable.
 *
 * @param serviceMillis the mean service time: the dependency's time of a call alone
 * @param serviceSigma the spread of the service time: the standard deviation of the calls' log times (0: every
 *     call as long; about 1: as spread as an exponential)
 * @param overheadMillis the time of a request outside the dependency's path, at least 0
 * @param capacity calls the downstream serves at full speed at once ({@code --downstream-capacity})
 * @param degradation how steeply its throughput falls beyond the capacity ({@code --degradation})
 * @param contention the serial fraction that slows every call when several progress (Amdahl's law;
 *     {@code SimulationSettings.Builder#contention}), 0 for none
 * @param probe per number of clients, the measured and the fitted model's closed-loop throughput
 */
record ServiceModel(double serviceMillis, double serviceSigma, double overheadMillis, int capacity,
        double degradation, double contention, List<ProbePoint> probe) {

    /** Below this spread the service time is taken as fixed (a log-normal needs its p99 above its median). */
    static final double MIN_SIGMA = 1e-3;

    /** The 99th percentile of the standard normal distribution. */
    private static final double Z_99 = 2.3263478740408408;

    /** The degradations the fit tries (the capacities are 1 to the pool's size). */
    static final double[] DEGRADATIONS = {0, 0.1, 0.25, 0.5, 1, 2};
    /** The contentions the fit tries, at the pool's size as the capacity. */
    static final double[] CONTENTIONS = {0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.6, 0.7, 0.85, 1};

    /** Virtual time of each simulated probe step: long enough for a few thousand calls at the lab's rates. */
    private static final Duration PROBE_STEP = Duration.ofSeconds(10);

    /**
     * One point of the closed-loop probe.
     *
     * @param clients closed-loop clients
     * @param measuredPerSecond the lab's throughput with that many clients
     * @param modelPerSecond the fitted model's
     */
    record ProbePoint(int clients, double measuredPerSecond, double modelPerSecond) {
    }

    /**
     * Fits the model to a probe.
     *
     * @param serviceMillis the dependency's time of a call alone, positive
     * @param serviceSigma the standard deviation of its calls' log times, at least 0
     * @param probe the measured closed-loop throughput (per second) by number of clients; must hold 1 client
     * @param maxCapacity the highest capacity to try (the pool's size: the probe's most clients)
     * @return of the capacities and degradations (1 to {@code maxCapacity} and {@link #DEGRADATIONS}, without
     *     contention) and the contentions ({@link #CONTENTIONS}, at capacity {@code maxCapacity}, degradation 0), the
     *     one whose simulated probe has the smallest sum of squared log ratios to the measured one; ties go to the
     *     smaller capacity, then the smaller degradation, and to no contention
     * @throws IllegalArgumentException when the probe has no 1-client point or a throughput is not positive
     */
    static ServiceModel fit(double serviceMillis, double serviceSigma, Map<Integer, Double> probe, int maxCapacity) {
        Double alone = probe.get(1);
        if (alone == null || probe.values().stream().anyMatch(x -> !(x > 0)) || !(serviceMillis > 0)
                || !(serviceSigma >= 0)) {
            throw new IllegalArgumentException("probe needs positive throughputs including 1 client, a positive "
                    + "serviceMillis and a serviceSigma of at least 0, got " + probe + ", " + serviceMillis + " and "
                    + serviceSigma);
        }
        Distribution serviceTime = serviceTime(serviceMillis, serviceSigma);
        double overhead = Math.max(0, 1000 / alone - serviceMillis);
        // n clients never put more than n calls in the downstream: at a capacity of n or more, neither the capacity
        // nor the degradation changes their run (the same seed gives the same calls), so it is made once.
        Map<Integer, Double> belowCapacity = new HashMap<>();
        ServiceModel best = null;
        double bestError = Double.POSITIVE_INFINITY;
        for (int capacity = 1; capacity <= maxCapacity; capacity++) {
            for (double degradation : DEGRADATIONS) {
                List<ProbePoint> points = new ArrayList<>();
                double error = 0;
                for (Map.Entry<Integer, Double> e : probe.entrySet()) {
                    int clients = e.getKey();
                    double model = clients <= capacity
                            ? belowCapacity.computeIfAbsent(clients, n -> closedLoop(serviceTime, overhead,
                                    n, 0, 0, n))
                            : closedLoop(serviceTime, overhead, capacity, degradation, 0, clients);
                    error += addPoint(points, e, model);
                }
                if (error < bestError - 1e-12) {
                    bestError = error;
                    best = new ServiceModel(serviceMillis, serviceSigma, overhead, capacity, degradation, 0,
                            List.copyOf(points));
                }
            }
        }
        // A database whose calls serialise in part scales sublinearly from the second client on, which no whole
        // number of full-speed slots describes; Amdahl's serial fraction does.
        for (double contention : CONTENTIONS) {
            List<ProbePoint> points = new ArrayList<>();
            double error = 0;
            for (Map.Entry<Integer, Double> e : probe.entrySet()) {
                error += addPoint(points, e, closedLoop(serviceTime, overhead, maxCapacity, 0, contention,
                        e.getKey()));
            }
            if (error < bestError - 1e-12) {
                bestError = error;
                best = new ServiceModel(serviceMillis, serviceSigma, overhead, maxCapacity, 0, contention,
                        List.copyOf(points));
            }
        }
        return best;
    }

    /** Adds the model's point beside the measured one; returns the squared log ratio of the two. */
    private static double addPoint(List<ProbePoint> points, Map.Entry<Integer, Double> measured, double model) {
        points.add(new ProbePoint(measured.getKey(), measured.getValue(), Math.round(model * 10) / 10.0));
        double log = Math.log(Math.max(model, 1e-9) / measured.getValue());
        return log * log;
    }

    /**
     * The simulator's closed-loop throughput of this downstream: {@code clients} clients each calling as soon as
     * their previous call ended and the overhead passed, no bulkhead, in virtual time (seed 42).
     *
     * @param serviceTime the service time's distribution ({@link #serviceTime(double, double)})
     * @param overheadMillis think time between calls
     * @param capacity the downstream's capacity
     * @param degradation its degradation
     * @param contention its contention
     * @param clients how many clients
     * @return completed calls per second
     */
    static double closedLoop(Distribution serviceTime, double overheadMillis, int capacity, double degradation,
            double contention, int clients) {
        SimulationSettings settings = base(serviceTime, capacity, degradation, contention)
                .arrivals(new ArrivalModel.ClosedLoop(clients, new Distribution.Fixed(nanos(overheadMillis))))
                .duration(PROBE_STEP).drain(Duration.ZERO).build();
        SimulationResult result = new Simulation(settings).run(ProgressListener.none());
        return result.counts().count(CallOutcome.COMPLETED) / (PROBE_STEP.toNanos() / 1e9);
    }

    /**
     * The simulator's settings for this downstream, without arrivals and without a bulkhead: virtual time, seed 42.
     *
     * @return a builder to complete
     */
    SimulationSettings.Builder settings() {
        return base(serviceTime(), capacity, degradation, contention);
    }

    /**
     * Returns the model's service time.
     *
     * @return {@link #serviceTime(double, double)} of this model's mean and spread
     */
    Distribution serviceTime() {
        return serviceTime(serviceMillis, serviceSigma);
    }

    /**
     * Returns the service time of a mean and a spread: the log-normal with that mean and {@code sigma} (its median
     * {@code mean / exp(sigma^2 / 2)}), or a fixed time below {@link #MIN_SIGMA}.
     *
     * @param meanMillis the mean, positive
     * @param sigma the standard deviation of the log times, at least 0
     * @return the distribution
     */
    static Distribution serviceTime(double meanMillis, double sigma) {
        if (sigma < MIN_SIGMA) {
            return new Distribution.Fixed(nanos(meanMillis));
        }
        double medianMillis = meanMillis / Math.exp(sigma * sigma / 2);
        return new Distribution.LogNormal(nanos(medianMillis), nanos(medianMillis * Math.exp(Z_99 * sigma)));
    }

    private static SimulationSettings.Builder base(Distribution serviceTime, int capacity, double degradation,
            double contention) {
        return SimulationSettings.builder().mode(ExecutionMode.VIRTUAL_TIME).seed(42).serviceTime(serviceTime)
                .downstreamCapacity(capacity).degradation(degradation).contention(contention).bulkhead(null);
    }

    static Duration nanos(double millis) {
        return Duration.ofNanos(Math.round(millis * 1e6));
    }

    /**
     * Describes the model in one line.
     *
     * @return for example {@code service time lognormal:median=15ms,p99=42ms (mean 16.90 ms) + 5.30 ms outside the
     *     dependency's path, --downstream-capacity 2 --degradation 0.1 (its closed-loop throughput of ...)}
     */
    String describe() {
        StringBuilder fit = new StringBuilder();
        for (ProbePoint p : probe) {
            fit.append(fit.length() == 0 ? "" : ", ").append(String.format(Locale.ROOT, "%d: %.0f/s", p.clients(),
                    p.modelPerSecond()));
        }
        return String.format(Locale.ROOT, "service time %s (mean %.2f ms) + %.2f ms outside the dependency's path, "
                + "--downstream-capacity %d --degradation %s%s (its closed-loop throughput of %s)",
                serviceTime().spec(), serviceMillis, overheadMillis, capacity, degradation,
                contention > 0 ? ", contention " + contention + " (Amdahl's serial fraction)" : "", fit);
    }
}
