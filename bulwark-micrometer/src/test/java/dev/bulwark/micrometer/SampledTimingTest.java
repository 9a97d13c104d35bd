package dev.bulwark.micrometer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.bulwark.Bulkhead;
import dev.bulwark.Ticker;
import io.micrometer.core.instrument.FunctionTimer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.Arrays;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * Issue 20: with metrics bound, a bulkhead times only a sample of its executions once calls are frequent; counts stay
 * exact, and the timers' mean, max and percentiles stay within 5 % of an exact recording of the same calls.
 */
class SampledTimingTest {

    /** A ticker the test moves, and that counts how often it is read. */
    private static final class CountingTicker implements Ticker {
        final AtomicLong now = new AtomicLong();
        final AtomicLong reads = new AtomicLong();

        @Override
        public long read() {
            reads.incrementAndGet();
            return now.get();
        }
    }

    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final CountingTicker ticker = new CountingTicker();

    private Bulkhead bound(BulwarkMetrics metrics) {
        Bulkhead bulkhead = Bulkhead.builder().name("db").maxConcurrency(4).ticker(ticker).build();
        metrics.bind(bulkhead);
        return bulkhead;
    }

    /** Runs one call per recorded duration, each taking exactly that long on the ticker. */
    private void callWith(Bulkhead bulkhead, long[] durations) {
        for (long duration : durations) {
            bulkhead.run(() -> ticker.now.addAndGet(duration));
        }
    }

    /** 200,000 calls of 5 to 25 microseconds: about 70,000 calls a second of ticker time. */
    private static long[] recordedDistribution() {
        SplittableRandom random = new SplittableRandom(7);
        long[] durations = new long[200_000];
        for (int i = 0; i < durations.length; i++) {
            // Skewed: most calls near 5-10 us, a tail up to 25 us.
            double u = random.nextDouble();
            durations[i] = 5_000 + (long) (20_000 * u * u);
        }
        return durations;
    }

    private FunctionTimer execution() {
        return registry.get("bulwark.bulkhead.execution").functionTimer();
    }

    private double gauge(String name, String... tags) {
        return registry.get(name).tags(tags).timeGauge().value(TimeUnit.NANOSECONDS);
    }

    @Test
    void aSampleKeepsTheCountExactAndMeanMaxAndPercentilesWithinFivePercentOfTheExactRecording() {
        Bulkhead bulkhead = bound(BulwarkMetrics.of(registry));
        long[] durations = recordedDistribution();

        callWith(bulkhead, durations);

        long[] sorted = durations.clone();
        Arrays.sort(sorted);
        double exactMean = Arrays.stream(durations).average().orElseThrow();
        assertThat(execution().count()).isEqualTo(durations.length);
        assertThat(registry.get("bulwark.bulkhead.calls").tags("outcome", "admitted").functionCounter().count())
                .isEqualTo(durations.length);
        assertThat(execution().mean(TimeUnit.NANOSECONDS)).isCloseTo(exactMean, within(exactMean * 0.05));
        assertThat(execution().totalTime(TimeUnit.NANOSECONDS))
                .isCloseTo(exactMean * durations.length, within(exactMean * durations.length * 0.05));
        double exactMax = sorted[sorted.length - 1];
        assertThat(gauge("bulwark.bulkhead.execution.max")).isCloseTo(exactMax, within(exactMax * 0.05))
                .isLessThanOrEqualTo(exactMax);
        for (String phi : new String[] {"0.5", "0.95", "0.99"}) {
            double exact = sorted[(int) Math.ceil(Double.parseDouble(phi) * sorted.length) - 1];
            assertThat(gauge("bulwark.bulkhead.execution.percentile", "phi", phi)).as("p%s", phi)
                    .isCloseTo(exact, within(exact * 0.05));
        }
        // It did sample: far fewer than the two clock readings per call that timing every call takes.
        assertThat(ticker.reads.get()).isLessThan(durations.length / 4);
    }

    @Test
    void exactTimingTimesEveryCallAtAnyRate() {
        Bulkhead bulkhead = bound(BulwarkMetrics.builder(registry).exactTiming(true).build());
        long[] durations = recordedDistribution();

        callWith(bulkhead, durations);

        long total = Arrays.stream(durations).sum();
        assertThat(execution().count()).isEqualTo(durations.length);
        assertThat(execution().totalTime(TimeUnit.NANOSECONDS)).isEqualTo((double) total);
        assertThat(gauge("bulwark.bulkhead.execution.max"))
                .isEqualTo((double) Arrays.stream(durations).max().orElseThrow());
        assertThat(ticker.reads.get()).isEqualTo(2L * durations.length);
    }

    @Test
    void aFewCallsASecondAreAllTimedExactlyWithoutAskingForIt() {
        Bulkhead bulkhead = bound(BulwarkMetrics.of(registry));
        long[] durations = new long[500];
        Arrays.fill(durations, 3_000_000); // 3 ms each, back to back: about 330 calls a second
        durations[250] = 40_000_000;

        callWith(bulkhead, durations);

        assertThat(execution().totalTime(TimeUnit.NANOSECONDS)).isEqualTo(499 * 3_000_000.0 + 40_000_000);
        assertThat(gauge("bulwark.bulkhead.execution.max")).isEqualTo(40_000_000.0);
    }

    @Test
    void countsStayExactUnderConcurrentCalls() throws Exception {
        Bulkhead bulkhead = Bulkhead.builder().name("db").maxConcurrency(2).maxQueue(0).build();
        BulwarkMetrics.of(registry).bind(bulkhead);
        int threads = 4;
        int callsEach = 50_000;
        AtomicLong refused = new AtomicLong();
        CountDownLatch start = new CountDownLatch(1);
        Thread[] callers = new Thread[threads];
        for (int t = 0; t < threads; t++) {
            callers[t] = new Thread(() -> {
                try {
                    start.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
                for (int i = 0; i < callsEach; i++) {
                    try {
                        bulkhead.run(() -> {
                        });
                    } catch (dev.bulwark.BulkheadRejectedException e) {
                        refused.incrementAndGet();
                    }
                }
            });
            callers[t].start();
        }
        start.countDown();
        for (Thread caller : callers) {
            caller.join();
        }

        double admitted = registry.get("bulwark.bulkhead.calls").tags("outcome", "admitted").functionCounter().count();
        double rejected = registry.get("bulwark.bulkhead.calls").tags("outcome", "rejected.queue_full")
                .functionCounter().count();
        assertThat(admitted + rejected).isEqualTo((double) threads * callsEach);
        assertThat(rejected).isEqualTo((double) refused.get());
        assertThat(execution().count()).isEqualTo(admitted);
        assertThat(registry.get("bulwark.bulkhead.wait").tags("outcome", "admitted").functionTimer().count())
                .isEqualTo(admitted);
    }
}
