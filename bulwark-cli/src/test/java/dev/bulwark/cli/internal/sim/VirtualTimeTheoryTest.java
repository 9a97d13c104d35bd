package dev.bulwark.cli.internal.sim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.time.Duration;
import java.util.function.ToDoubleFunction;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.api.Test;

/**
 * The virtual-time simulator against queueing theory. With the bulkhead's limit equal to the downstream's
 * capacity the downstream never slows down, so bulkhead and downstream together are a textbook multi-server
 * queue: with no queue, Erlang's loss system (blocking by Erlang B, the same for every service distribution of the
 * same mean: exponential, fixed, lognormal); with a FIFO queue and no wait bound, M/M/c/K (blocking and mean
 * wait from the birth-death chain); with closed-loop clients, Engset's loss system.
 *
 * <p>Each figure is the mean of five seeds, and must lie within four standard errors of the theory (the spread
 * of the five seeds measures the statistical error of this run length) and within a small absolute bound, so that
 * a simulator that is merely noisy cannot pass either.
 */
class VirtualTimeTheoryTest {

    private static final int SEEDS = 5;
    private static final Duration RUN = Duration.ofSeconds(60);

    static Stream<Arguments> serviceDistributions() {
        return Stream.of(
                Arguments.of(new Distribution.Exponential(Duration.ofMillis(20))),
                Arguments.of(new Distribution.Fixed(Duration.ofMillis(20))),
                Arguments.of(new Distribution.LogNormal(Duration.ofMillis(12), Duration.ofMillis(120))));
    }

    @ParameterizedTest(name = "service {0}")
    @MethodSource("serviceDistributions")
    void lossSystemBlocksAsErlangBForEveryServiceDistribution(Distribution service) {
        int servers = 20;
        double offered = 18.0; // erlangs: rate * mean service time
        double rate = offered / (service.meanNanos() / 1e9);
        double expected = erlangB(servers, offered);

        double[] blocking = perSeed(seed -> {
            SimulationResult result = run(settings(rate, service, seed)
                    .bulkhead(new BulkheadSettings(servers, 0, null)));
            return (double) result.counts().count(CallOutcome.REJECTED_QUEUE_FULL) / result.counts().arrivals();
        });

        assertWithinStatisticalError(blocking, expected, 0.01);
        // The recursion agrees with the textbook form: the last state of M/M/c/c.
        assertThat(expected).isCloseTo(mmckDistribution(servers, servers, offered)[servers], within(1e-12));
    }

    @Test
    void queueWithoutWaitBoundBlocksAndWaitsAsMmck() {
        int servers = 10;
        int capacity = 20; // 10 in service, 10 waiting
        double offered = 8.5;
        Distribution service = new Distribution.Exponential(Duration.ofMillis(20));
        double rate = offered / 0.020;
        double[] chain = mmckDistribution(servers, capacity, offered);
        double expectedBlocking = chain[capacity];
        double queued = 0;
        for (int n = servers + 1; n <= capacity; n++) {
            queued += (n - servers) * chain[n];
        }
        // Little's law on the queue: mean wait of admitted calls = Lq / admitted rate.
        double expectedWaitMillis = queued / (rate * (1 - expectedBlocking)) * 1000.0;

        double[] blocking = new double[SEEDS];
        double[] waitMillis = new double[SEEDS];
        for (int i = 0; i < SEEDS; i++) {
            SimulationResult result = run(settings(rate, service, 100 + i)
                    .bulkhead(new BulkheadSettings(servers, capacity - servers, null)));
            blocking[i] = (double) result.counts().count(CallOutcome.REJECTED_QUEUE_FULL) / result.counts().arrivals();
            waitMillis[i] = result.queueWait().mean();
        }

        assertWithinStatisticalError(blocking, expectedBlocking, 0.01);
        assertWithinStatisticalError(waitMillis, expectedWaitMillis, 0.05 * expectedWaitMillis);
    }

    @Test
    void closedLoopLossSystemBlocksAsEngset() {
        int clients = 30;
        int servers = 12;
        Distribution think = new Distribution.Exponential(Duration.ofMillis(30));
        Distribution service = new Distribution.Fixed(Duration.ofMillis(20)); // Engset, too, is insensitive
        double perIdleSource = service.meanNanos() / think.meanNanos();
        double expected = engsetCallCongestion(clients, servers, perIdleSource);

        double[] blocking = perSeed(seed -> {
            SimulationResult result = run(SimulationSettings.builder().duration(RUN).seed(seed)
                    .arrivals(new ArrivalModel.ClosedLoop(clients, think)).serviceTime(service)
                    .downstreamCapacity(servers).mode(ExecutionMode.VIRTUAL_TIME)
                    .bulkhead(new BulkheadSettings(servers, 0, null)));
            return (double) result.counts().count(CallOutcome.REJECTED_QUEUE_FULL) / result.counts().arrivals();
        });

        assertWithinStatisticalError(blocking, expected, 0.01);
    }

    @Test
    void aBulkheadBelowTheOfferedLoadRefusesExactlyWhatTheoryRefusesNotWhatTheMachineAllows() {
        // The same settings twice give the same counts: nothing depends on the machine.
        SimulationSettings.Builder settings = settings(1000, new Distribution.Exponential(Duration.ofMillis(20)), 9)
                .bulkhead(new BulkheadSettings(20, 0, null));
        SimulationResult first = run(settings);
        SimulationResult second = run(settings);
        assertThat(second.counts().arrivals()).isEqualTo(first.counts().arrivals());
        assertThat(second.counts().rejected()).isEqualTo(first.counts().rejected());
        assertThat(second.endToEnd()).isEqualTo(first.endToEnd());
    }

    private static SimulationSettings.Builder settings(double ratePerSecond, Distribution service, long seed) {
        return SimulationSettings.builder().duration(RUN).seed(seed)
                .arrivals(new ArrivalModel.OpenLoop(new Rate(ratePerSecond))).serviceTime(service)
                .downstreamCapacity(1000).mode(ExecutionMode.VIRTUAL_TIME);
    }

    private static SimulationResult run(SimulationSettings.Builder settings) {
        SimulationResult result = new Simulation(settings.build()).run(ProgressListener.none());
        assertThat(result.counts().count(CallOutcome.CANCELLED)).isZero();
        assertThat(result.unexpectedFailure()).isEmpty();
        return result;
    }

    private static double[] perSeed(ToDoubleFunction<Long> measure) {
        double[] values = new double[SEEDS];
        for (int i = 0; i < SEEDS; i++) {
            values[i] = measure.applyAsDouble(100L + i);
        }
        return values;
    }

    /** Mean within four standard errors (from the seeds' spread) of the theory, and within {@code bound}. */
    private static void assertWithinStatisticalError(double[] values, double expected, double bound) {
        double mean = 0;
        for (double value : values) {
            mean += value / values.length;
        }
        double variance = 0;
        for (double value : values) {
            variance += (value - mean) * (value - mean) / (values.length - 1);
        }
        double standardError = Math.sqrt(variance / values.length);
        System.out.printf("theory %.5f, simulated %.5f (standard error %.5f)%n", expected, mean, standardError);
        assertThat(Math.abs(mean - expected)).isLessThanOrEqualTo(Math.max(4 * standardError, 1e-4));
        assertThat(mean).isCloseTo(expected, within(bound));
    }

    /** Erlang B by its stable recursion: B(0) = 1, B(k) = A B(k-1) / (k + A B(k-1)). */
    static double erlangB(int servers, double offered) {
        double blocking = 1.0;
        for (int k = 1; k <= servers; k++) {
            blocking = offered * blocking / (k + offered * blocking);
        }
        return blocking;
    }

    /** The stationary distribution of M/M/c/K: p(n) proportional to A^n/n! up to c, then (A/c) per extra caller. */
    static double[] mmckDistribution(int servers, int capacity, double offered) {
        double[] p = new double[capacity + 1];
        p[0] = 1.0;
        for (int n = 1; n <= capacity; n++) {
            p[n] = p[n - 1] * offered / Math.min(n, servers);
        }
        double sum = 0;
        for (double value : p) {
            sum += value;
        }
        for (int n = 0; n <= capacity; n++) {
            p[n] /= sum;
        }
        return p;
    }

    /** Engset's call congestion: what share of calls N sources (each offering {@code beta} when idle) find blocked. */
    static double engsetCallCongestion(int sources, int servers, double beta) {
        double term = 1.0;
        double sum = 1.0;
        for (int i = 1; i <= servers; i++) {
            term *= beta * (sources - 1 - (i - 1)) / i; // C(N-1, i) beta^i
            sum += term;
        }
        return term / sum;
    }
}
