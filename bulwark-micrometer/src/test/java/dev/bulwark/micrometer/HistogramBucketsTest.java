package dev.bulwark.micrometer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import dev.bulwark.Bulkhead;
import dev.bulwark.Permit;
import dev.bulwark.Subscription;
import dev.bulwark.testing.ManualTime;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.composite.CompositeMeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.HashMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * Issue 40, item 2: Prometheus {@code _bucket} series for the bulkhead's waits and executions, consistent with the
 * exact counts ({@code +Inf} equals {@code _count} equals the calls), monotonic, weighted so that a fleet-wide sum
 * weighs each instance by its calls, and whose quantiles fall in the bucket of the exact ones.
 */
class HistogramBucketsTest {

    private static final String EXECUTION = "bulwark_bulkhead_execution_duration_seconds";
    private static final String WAIT = "bulwark_bulkhead_wait_duration_seconds";

    private final ManualTime time = new ManualTime();

    private Bulkhead bulkhead(String name) {
        return bulkhead(name, time);
    }

    private static Bulkhead bulkhead(String name, ManualTime time) {
        return Bulkhead.builder().name(name).maxConcurrency(1).maxQueue(10).maxWait(Duration.ofMillis(500))
                .ticker(time).scheduler(time).build();
    }

    private void callTaking(Bulkhead bulkhead, Duration duration) {
        bulkhead.run(() -> time.advance(duration));
    }

    /** The cumulative buckets of one series in a scrape, by upper bound ({@code +Inf} as infinity). */
    static TreeMap<Double, Long> buckets(String scrape, String family, String labels) {
        TreeMap<Double, Long> buckets = new TreeMap<>();
        Pattern line = Pattern.compile("^" + family + "_bucket\\{" + Pattern.quote(labels)
                + ",le=\"([^\"]+)\"} (\\S+)", Pattern.MULTILINE);
        Matcher matcher = line.matcher(scrape);
        while (matcher.find()) {
            double bound = matcher.group(1).equals("+Inf") ? Double.POSITIVE_INFINITY
                    : Double.parseDouble(matcher.group(1));
            buckets.put(bound, (long) Double.parseDouble(matcher.group(2)));
        }
        return buckets;
    }

    static double sample(String scrape, String series) {
        Matcher matcher = Pattern.compile("^" + Pattern.quote(series) + " (\\S+)", Pattern.MULTILINE).matcher(scrape);
        assertThat(matcher.find()).as("%s in the scrape", series).isTrue();
        return Double.parseDouble(matcher.group(1));
    }

    /** Prometheus's {@code histogram_quantile}: linear interpolation within the bucket that holds the rank. */
    static double histogramQuantile(double phi, TreeMap<Double, Long> buckets) {
        long total = buckets.lastEntry().getValue();
        double rank = phi * total;
        double lower = 0.0;
        long below = 0L;
        for (Map.Entry<Double, Long> bucket : buckets.entrySet()) {
            if (bucket.getValue() >= rank) {
                if (bucket.getKey().isInfinite()) {
                    return lower; // Prometheus returns the highest finite bound
                }
                long inBucket = bucket.getValue() - below;
                return lower + (bucket.getKey() - lower) * (inBucket == 0 ? 0.0 : (rank - below) / inBucket);
            }
            lower = bucket.getKey();
            below = bucket.getValue();
        }
        throw new AssertionError("no bucket holds rank " + rank);
    }

    @Test
    void exactExecutionBucketsCountTheCallsAndTheirQuantilesFallInTheExactOnesBucket() {
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        Bulkhead db = bulkhead("db");
        BulwarkMetrics.builder(registry).exactTiming(true).build().bind(db);
        List<Long> micros = new ArrayList<>();
        for (int i = 0; i < 1_000; i++) {
            long duration = (long) (200 * Math.exp(3.0 * i / 1_000.0 * ((i * 7919) % 13 / 12.0))); // 0.2 to 4 ms
            micros.add(duration);
            callTaking(db, Duration.ofNanos(duration * 1_000));
        }

        String scrape = registry.scrape();
        TreeMap<Double, Long> buckets = buckets(scrape, EXECUTION, "name=\"db\"");

        assertThat(scrape).contains("# TYPE " + EXECUTION + " histogram");
        assertThat(buckets).hasSize(BulwarkMetrics.DEFAULT_HISTOGRAM_BUCKETS.size() + 1);
        assertThat(buckets.lastEntry().getValue()).as("+Inf").isEqualTo(1_000L)
                .isEqualTo((long) sample(scrape, EXECUTION + "_count{name=\"db\"}"))
                .isEqualTo((long) sample(scrape, "bulwark_bulkhead_execution_seconds_count{name=\"db\"}"));
        assertThat(sample(scrape, EXECUTION + "_sum{name=\"db\"}"))
                .isCloseTo(micros.stream().mapToLong(Long::longValue).sum() / 1e6, within(1e-6));
        for (Map.Entry<Double, Long> bucket : buckets.headMap(Double.POSITIVE_INFINITY).entrySet()) {
            long exact = micros.stream().filter(us -> us / 1e6 <= bucket.getKey()).count();
            assertThat(bucket.getValue()).as("calls of at most %s s", bucket.getKey()).isEqualTo(exact);
        }
        long[] sorted = micros.stream().mapToLong(Long::longValue).sorted().toArray();
        for (double phi : new double[] {0.5, 0.9, 0.99}) {
            double exact = sorted[(int) Math.ceil(phi * sorted.length) - 1] / 1e6;
            double estimated = histogramQuantile(phi, buckets);
            Double upper = buckets.ceilingKey(exact);
            Double lower = buckets.lowerKey(upper);
            assertThat(estimated).as("p%s from the buckets, exact %s s", phi * 100, exact)
                    .isBetween(lower == null ? 0.0 : lower, upper);
        }
    }

    @Test
    void waitBucketsCountAFreeSlotAsZeroAndEveryOutcomeHasItsSeries() {
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        Bulkhead db = bulkhead("db");
        BulwarkMetrics.of(registry).bind(db);
        for (int i = 0; i < 5; i++) {
            callTaking(db, Duration.ofMillis(1)); // found a free slot: waited 0
        }
        Permit holder = db.acquire();
        CompletableFuture<Permit> queued = db.acquireAsync();
        time.advance(Duration.ofMillis(30));
        holder.close(); // the queued call waited 30 ms
        queued.join().close();
        Permit again = db.acquire();
        CompletableFuture<Permit> timedOut = db.acquireAsync();
        CompletableFuture<Permit> cancelled = db.acquireAsync();
        time.advance(Duration.ofMillis(2));
        cancelled.cancel(false);
        time.advance(Duration.ofMillis(600));
        assertThat(timedOut).isCompletedExceptionally();
        again.close();

        String scrape = registry.scrape();
        TreeMap<Double, Long> admitted = buckets(scrape, WAIT, "name=\"db\",outcome=\"admitted\"");
        assertThat(admitted.get(0.0001)).as("the seven calls that found a free slot").isEqualTo(7L);
        assertThat(admitted.get(0.025)).isEqualTo(7L);
        assertThat(admitted.get(0.05)).as("and the one that waited 30 ms").isEqualTo(8L);
        assertThat(admitted.lastEntry().getValue()).isEqualTo(8L)
                .isEqualTo((long) sample(scrape,
                        "bulwark_bulkhead_wait_seconds_count{name=\"db\",outcome=\"admitted\"}"));
        TreeMap<Double, Long> timedOutWaits = buckets(scrape, WAIT, "name=\"db\",outcome=\"rejected.wait_timeout\"");
        assertThat(timedOutWaits.get(0.25)).isZero();
        assertThat(timedOutWaits.get(1.0)).as("max wait 500 ms, seen when the manual clock ran its timer")
                .isEqualTo(1L);
        assertThat(timedOutWaits.lastEntry().getValue()).isEqualTo(1L);
        TreeMap<Double, Long> cancelledWaits = buckets(scrape, WAIT, "name=\"db\",outcome=\"cancelled\"");
        assertThat(cancelledWaits.get(0.001)).isZero();
        assertThat(cancelledWaits.get(0.0025)).isEqualTo(1L);
        assertThat(cancelledWaits.lastEntry().getValue()).isEqualTo(1L);
    }

    @Test
    void aSampledBusyInstanceWeighsItsCallsInAFleetWideSum() {
        // Instance A: 200,000 calls of 1 or 5 µs (half each): about 300,000 calls a second, so one in 256 is timed.
        PrometheusMeterRegistry busy = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        Bulkhead a = bulkhead("db");
        BulwarkMetrics.builder(busy).histogramBuckets(Duration.ofNanos(2_000), Duration.ofNanos(10_000)).build()
                .bind(a);
        List<TreeMap<Double, Long>> scrapes = new ArrayList<>();
        for (int i = 0; i < 200_000; i++) {
            callTaking(a, Duration.ofNanos(i % 2 == 0 ? 1_000 : 5_000));
            if (i % 20_000 == 19_999) {
                scrapes.add(buckets(busy.scrape(), EXECUTION, "name=\"db\""));
            }
        }
        // Instance B: 500 calls of 5 µs at 1,000 calls a second, every one timed.
        ManualTime quietTime = new ManualTime();
        PrometheusMeterRegistry quiet = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        Bulkhead b = bulkhead("db", quietTime);
        BulwarkMetrics.builder(quiet).histogramBuckets(Duration.ofNanos(2_000), Duration.ofNanos(10_000)).build()
                .bind(b);
        for (int i = 0; i < 500; i++) {
            b.run(() -> quietTime.advance(Duration.ofNanos(5_000)));
            quietTime.advance(Duration.ofMillis(1));
        }

        TreeMap<Double, Long> fromA = buckets(busy.scrape(), EXECUTION, "name=\"db\"");
        TreeMap<Double, Long> fromB = buckets(quiet.scrape(), EXECUTION, "name=\"db\"");

        assertThat(fromA.lastEntry().getValue()).as("+Inf: the exact count").isEqualTo(200_000L);
        double shareAtMost2us = fromA.get(0.000002) / 200_000.0;
        assertThat(shareAtMost2us).as("estimated from about 800 samples").isBetween(0.38, 0.62);
        assertThat(fromB.get(0.000002)).isZero();
        assertThat(fromB.lastEntry().getValue()).isEqualTo(500L);
        long fleetAtMost2us = fromA.get(0.000002) + fromB.get(0.000002);
        long fleet = fromA.lastEntry().getValue() + fromB.lastEntry().getValue();
        assertThat((double) fleetAtMost2us / fleet).as("the busy instance weighs its 200,000 calls, not its sample")
                .isBetween(0.38, 0.62);
        scrapes.add(fromA);
        for (int s = 1; s < scrapes.size(); s++) {
            for (Double bound : scrapes.get(s).keySet()) {
                assertThat(scrapes.get(s).get(bound)).as("bucket %s never decreases", bound)
                        .isGreaterThanOrEqualTo(scrapes.get(s - 1).get(bound));
            }
        }
        for (TreeMap<Double, Long> scrape : scrapes) {
            assertThat(new ArrayList<>(scrape.values())).as("cumulative").isSorted();
        }
    }

    /**
     * The invariant of {@code HistogramSeries} under concurrency: while four threads make calls (every wait and a
     * sample of executions recorded as they happen), every scrape's buckets are cumulative, none above {@code +Inf},
     * and none lower than in the scrape before; once the threads are done, {@code +Inf} is the exact count.
     */
    @Test
    void scrapesDuringCallsKeepEveryBucketMonotonicAndAtMostTheCount() throws Exception {
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        Bulkhead db = Bulkhead.builder().name("db").maxConcurrency(2).maxQueue(100).build();
        BulwarkMetrics.builder(registry).histogramBuckets(Duration.ofNanos(1_000), Duration.ofNanos(10_000),
                Duration.ofNanos(100_000)).build().bind(db);
        int threads = 4;
        int callsEach = 20_000;
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        CountDownLatch start = new CountDownLatch(1);
        List<Future<?>> callers = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            callers.add(pool.submit(() -> {
                start.await();
                for (int i = 0; i < callsEach; i++) {
                    db.run(Thread::onSpinWait);
                }
                return null;
            }));
        }
        start.countDown();
        List<String> families = List.of(EXECUTION + "|name=\"db\"", WAIT + "|name=\"db\",outcome=\"admitted\"");
        Map<String, TreeMap<Double, Long>> previous = new HashMap<>();
        int scrapes = 0;
        while (scrapes < 20 || callers.stream().anyMatch(f -> !f.isDone())) {
            String scrape = registry.scrape();
            scrapes++;
            for (String family : families) {
                String[] parts = family.split("\\|");
                TreeMap<Double, Long> now = buckets(scrape, parts[0], parts[1]);
                assertThat(new ArrayList<>(now.values())).as("%s cumulative", parts[0]).isSorted();
                TreeMap<Double, Long> before = previous.put(family, now);
                if (before != null) {
                    for (Double bound : now.keySet()) {
                        assertThat(now.get(bound)).as("%s bucket %s never decreases", parts[0], bound)
                                .isGreaterThanOrEqualTo(before.get(bound));
                    }
                }
            }
        }
        for (Future<?> caller : callers) {
            caller.get();
        }
        pool.shutdown();
        String quiet = registry.scrape();
        assertThat(buckets(quiet, WAIT, "name=\"db\",outcome=\"admitted\"").lastEntry().getValue())
                .isEqualTo((long) threads * callsEach);
        assertThat(buckets(quiet, EXECUTION, "name=\"db\"").lastEntry().getValue())
                .isEqualTo((long) threads * callsEach);
    }

    @Test
    void optOutCompositeOtherRegistriesAndUnbinding() {
        PrometheusMeterRegistry optedOut = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        BulwarkMetrics.builder(optedOut).histograms(false).build().bind(bulkhead("db"));
        assertThat(optedOut.scrape()).doesNotContain("_bucket").contains("bulwark_bulkhead_execution_seconds_count");

        SimpleMeterRegistry simple = new SimpleMeterRegistry();
        Bulkhead plain = bulkhead("db");
        BulwarkMetrics.of(simple).bind(plain);
        callTaking(plain, Duration.ofMillis(1));
        assertThat(simple.get("bulwark.bulkhead.execution").functionTimer().count()).isEqualTo(1.0);

        PrometheusMeterRegistry member = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        CompositeMeterRegistry composite = new CompositeMeterRegistry();
        composite.add(member);
        composite.add(new SimpleMeterRegistry());
        Bulkhead db = bulkhead("db");
        Subscription binding = BulwarkMetrics.of(composite, Tags.of("region", "eu")).bind(db);
        callTaking(db, Duration.ofMillis(3));
        String scrape = member.scrape();
        assertThat(buckets(scrape, EXECUTION, "name=\"db\",region=\"eu\"").get(0.005)).isEqualTo(1L);
        assertThat(buckets(scrape, WAIT, "name=\"db\",outcome=\"admitted\",region=\"eu\"").get(0.0001)).isEqualTo(1L);

        binding.close();
        assertThat(member.scrape()).doesNotContain("bulwark_bulkhead");
    }

    @Test
    void twoBindingsOfOneNameInOneRegistryKeepTheScrapeValid() {
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        BulwarkMetrics.of(registry).bind(bulkhead("db"));
        BulwarkMetrics.of(registry).bind(bulkhead("db"));
        String scrape = registry.scrape();
        assertThat(buckets(scrape, EXECUTION, "name=\"db\"")).isNotEmpty();
        assertThat(Pattern.compile("^" + EXECUTION + "_count\\{name=\"db\"}", Pattern.MULTILINE).matcher(scrape)
                .results().count()).isEqualTo(1L);
    }

    @Test
    void badBucketBoundsAreRefusedNamingTheParameter() {
        BulwarkMetrics.Builder builder = BulwarkMetrics.builder(new SimpleMeterRegistry());
        assertThatThrownBy(() -> builder.histogramBuckets()).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("upperBounds");
        assertThatThrownBy(() -> builder.histogramBuckets(Duration.ofMillis(2), Duration.ofMillis(1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("upperBounds[1]");
        assertThatThrownBy(() -> builder.histogramBuckets(Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("upperBounds[0]");
        assertThatThrownBy(() -> builder.histogramBuckets(Duration.ofMillis(1), null))
                .isInstanceOf(NullPointerException.class).hasMessageContaining("upperBounds[1]");
        Duration[] tooMany = new Duration[61];
        Arrays.setAll(tooMany, i -> Duration.ofMillis(i + 1));
        assertThatThrownBy(() -> builder.histogramBuckets(tooMany)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("upperBounds");
    }
}
