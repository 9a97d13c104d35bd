package dev.bulwark.opentelemetry;

import static dev.bulwark.opentelemetry.InstrumentNames.BULKHEAD_LEASE_DURATION;
import static dev.bulwark.opentelemetry.InstrumentNames.BULKHEAD_LEASE_DURATION_MAX;
import static dev.bulwark.opentelemetry.InstrumentNames.BULKHEAD_LEASE_DURATION_PERCENTILE;
import static dev.bulwark.opentelemetry.InstrumentNames.BULKHEAD_NAME;
import static dev.bulwark.opentelemetry.InstrumentNames.BULKHEAD_OUTCOME;
import static dev.bulwark.opentelemetry.InstrumentNames.BULKHEAD_PERCENTILE;
import static dev.bulwark.opentelemetry.InstrumentNames.BULKHEAD_REJECTION_REASON;
import static dev.bulwark.opentelemetry.InstrumentNames.BULKHEAD_TIME_IN_QUEUE_MAX;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import dev.bulwark.Bulkhead;
import dev.bulwark.testing.ManualTime;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.metrics.SdkMeterProvider;
import io.opentelemetry.sdk.metrics.data.DoublePointData;
import io.opentelemetry.sdk.metrics.data.HistogramPointData;
import io.opentelemetry.sdk.testing.exporter.InMemoryMetricReader;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Issue 40: the OpenTelemetry binding's maxima and percentiles gauges cover a recent window (2 minutes in 3 buffers
 * by default) on the binder's ticker, and its lease histogram is one a fleet can aggregate: bucket counts add up to
 * the count, and quantiles read from the buckets bracket the exact ones. Real SDK, in-memory reader.
 */
class WindowedTelemetryTest {

    private static final Attributes NAMED = Attributes.of(BULKHEAD_NAME, "db");

    private final InMemoryMetricReader reader = InMemoryMetricReader.create();
    private final SdkMeterProvider meterProvider = SdkMeterProvider.builder().registerMetricReader(reader).build();
    private final OpenTelemetrySdk sdk = OpenTelemetrySdk.builder().setMeterProvider(meterProvider).build();
    private final ManualTime time = new ManualTime();
    private final AtomicLong windowClock = new AtomicLong();

    @AfterEach
    void close() {
        meterProvider.close();
    }

    private Bulkhead bound(BulwarkTelemetry.Builder builder) {
        Bulkhead bulkhead = Bulkhead.builder().name("db").maxConcurrency(1).maxQueue(1)
                .maxWait(Duration.ofMillis(500)).ticker(time).scheduler(time).build();
        builder.ticker(windowClock::get).build().bind(bulkhead);
        return bulkhead;
    }

    private void callTaking(Bulkhead bulkhead, Duration duration) {
        bulkhead.run(() -> time.advance(duration));
    }

    private static double gauge(Collected collected, String name, Attributes attributes) {
        return collected.require(name).getDoubleGaugeData().getPoints().stream()
                .filter(point -> point.getAttributes().equals(attributes)).findFirst()
                .map(DoublePointData::getValue).orElseThrow();
    }

    private static Attributes percentile(String phi) {
        return NAMED.toBuilder().put(BULKHEAD_PERCENTILE, phi).build();
    }

    private void later(Duration duration) {
        windowClock.addAndGet(duration.toNanos());
    }

    @Test
    void aSlowLeasesMaxIsGoneAfterTheWindowAndPercentilesReflectOnlyTheWindow() {
        Bulkhead bulkhead = bound(BulwarkTelemetry.builder(sdk).exactTiming(true));
        callTaking(bulkhead, Duration.ofSeconds(3));
        Collected first = Collected.from(reader);
        assertThat(gauge(first, BULKHEAD_LEASE_DURATION_MAX, NAMED)).isEqualTo(3.0);
        assertThat(gauge(first, BULKHEAD_LEASE_DURATION_PERCENTILE, percentile("0.99"))).isCloseTo(3.0,
                within(3.0 * 0.016));

        later(Duration.ofMinutes(2));
        for (int i = 0; i < 100; i++) {
            callTaking(bulkhead, Duration.ofMillis(1 + i % 10));
        }
        Collected second = Collected.from(reader);
        assertThat(gauge(second, BULKHEAD_LEASE_DURATION_MAX, NAMED)).isEqualTo(0.010);
        assertThat(gauge(second, BULKHEAD_LEASE_DURATION_PERCENTILE, percentile("0.5"))).isCloseTo(0.005,
                within(0.0001));
        assertThat(second.histogram(BULKHEAD_LEASE_DURATION, NAMED).orElseThrow().getMax())
                .as("the SDK's cumulative histogram does not decay, which is why the gauges exist").isEqualTo(3.0);

        later(Duration.ofMinutes(2));
        Collected idle = Collected.from(reader);
        assertThat(gauge(idle, BULKHEAD_LEASE_DURATION_MAX, NAMED)).isZero();
        assertThat(gauge(idle, BULKHEAD_LEASE_DURATION_PERCENTILE, percentile("0.99"))).isZero();
    }

    @Test
    void theTimeInQueueMaxDecaysOnAConfiguredWindow() {
        Bulkhead bulkhead = bound(BulwarkTelemetry.builder(sdk).distributionStatisticExpiry(Duration.ofSeconds(10))
                .distributionStatisticBufferLength(2));
        try (var holder = bulkhead.acquire()) {
            CompletableFuture<String> timedOut = bulkhead.callAsync(() -> CompletableFuture.completedFuture("t"));
            time.advance(Duration.ofMillis(500));
            assertThat(timedOut).isCompletedExceptionally();
        }
        Attributes timedOut = NAMED.toBuilder().put(BULKHEAD_OUTCOME, "rejected")
                .put(BULKHEAD_REJECTION_REASON, "wait_timeout").build();
        later(Duration.ofSeconds(9));
        assertThat(gauge(Collected.from(reader), BULKHEAD_TIME_IN_QUEUE_MAX, timedOut)).isEqualTo(0.5);
        assertThat(gauge(Collected.from(reader), BULKHEAD_TIME_IN_QUEUE_MAX,
                NAMED.toBuilder().put(BULKHEAD_OUTCOME, "admitted").build())).isZero();
        later(Duration.ofSeconds(1));
        assertThat(gauge(Collected.from(reader), BULKHEAD_TIME_IN_QUEUE_MAX, timedOut)).isZero();
    }

    @Test
    void theLeaseHistogramsBucketsAddUpToItsCountAndBracketTheExactQuantiles() {
        Bulkhead bulkhead = bound(BulwarkTelemetry.builder(sdk).exactTiming(true));
        SplittableRandom random = new SplittableRandom(40);
        long[] micros = new long[2_000];
        for (int i = 0; i < micros.length; i++) {
            micros[i] = (long) (2_000 * Math.exp(random.nextGaussian())); // log-normal around 2 ms
            callTaking(bulkhead, Duration.ofNanos(micros[i] * 1_000));
        }
        HistogramPointData point = Collected.from(reader).histogram(BULKHEAD_LEASE_DURATION, NAMED).orElseThrow();
        List<Long> counts = point.getCounts();
        assertThat(counts.stream().mapToLong(Long::longValue).sum()).as("+Inf bucket == _count")
                .isEqualTo(point.getCount()).isEqualTo(micros.length);
        List<Double> bounds = point.getBoundaries();
        long[] sorted = micros.clone();
        Arrays.sort(sorted);
        for (double phi : new double[] {0.5, 0.9, 0.99}) {
            double exact = sorted[(int) Math.ceil(phi * sorted.length) - 1] / 1e6;
            long rank = (long) Math.ceil(phi * point.getCount());
            long seen = 0;
            int bucket = 0;
            while (seen + counts.get(bucket) < rank) {
                seen += counts.get(bucket++);
            }
            double lower = bucket == 0 ? 0.0 : bounds.get(bucket - 1);
            double upper = bucket == bounds.size() ? Double.POSITIVE_INFINITY : bounds.get(bucket);
            assertThat(exact).as("p%s within its bucket", phi * 100).isGreaterThan(lower).isLessThanOrEqualTo(upper);
        }
    }

    @Test
    void badWindowsFailAtOnceNamingTheParameter() {
        BulwarkTelemetry.Builder builder = BulwarkTelemetry.builder(sdk);
        assertThatThrownBy(() -> builder.distributionStatisticExpiry(Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("expiry");
        assertThatThrownBy(() -> builder.distributionStatisticBufferLength(61))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("bufferLength");
        assertThatThrownBy(() -> builder.ticker(null)).isInstanceOf(NullPointerException.class)
                .hasMessageContaining("ticker");
    }
}
