package dev.bulwark.opentelemetry;

import static dev.bulwark.opentelemetry.InstrumentNames.BULKHEAD_CALLS;
import static dev.bulwark.opentelemetry.InstrumentNames.BULKHEAD_LEASE_DURATION;
import static dev.bulwark.opentelemetry.InstrumentNames.BULKHEAD_NAME;
import static dev.bulwark.opentelemetry.InstrumentNames.BULKHEAD_OUTCOME;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.bulwark.Bulkhead;
import dev.bulwark.Ticker;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.metrics.SdkMeterProvider;
import io.opentelemetry.sdk.metrics.data.HistogramPointData;
import io.opentelemetry.sdk.testing.exporter.InMemoryMetricReader;
import java.util.Arrays;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Lease durations are sampled like the Micrometer binding's execution times: counts stay exact (in
 * {@code bulwark.bulkhead.calls}), the histogram holds a sample whose mean and max are close to the exact ones, the
 * bulkhead reads its clock for few calls; {@code exactTiming(true)} records every lease. Real SDK, in-memory reader.
 */
class SampledLeaseTest {

    private static final Attributes NAMED = Attributes.of(BULKHEAD_NAME, "db");

    private final InMemoryMetricReader reader = InMemoryMetricReader.create();
    private final SdkMeterProvider meterProvider = SdkMeterProvider.builder().registerMetricReader(reader).build();
    private final OpenTelemetrySdk sdk = OpenTelemetrySdk.builder().setMeterProvider(meterProvider).build();
    private final CountingTicker ticker = new CountingTicker();

    @AfterEach
    void close() {
        meterProvider.close();
    }

    /** A ticker the calls move forward, counting its readings. */
    static final class CountingTicker implements Ticker {
        final AtomicLong now = new AtomicLong();
        final AtomicLong reads = new AtomicLong();

        @Override
        public long read() {
            reads.incrementAndGet();
            return now.get();
        }
    }

    private Bulkhead bound(BulwarkTelemetry telemetry) {
        Bulkhead bulkhead = Bulkhead.builder().name("db").maxConcurrency(4).maxQueue(0).ticker(ticker).build();
        telemetry.bind(bulkhead);
        return bulkhead;
    }

    /** 200,000 calls of 5 to 25 microseconds: about 70,000 calls a second of ticker time. */
    private static long[] recordedDistribution() {
        SplittableRandom random = new SplittableRandom(11);
        long[] durations = new long[200_000];
        for (int i = 0; i < durations.length; i++) {
            double u = random.nextDouble();
            durations[i] = 5_000 + (long) (20_000 * u * u);
        }
        return durations;
    }

    private void callWith(Bulkhead bulkhead, long[] durations) {
        for (long duration : durations) {
            bulkhead.run(() -> ticker.now.addAndGet(duration));
        }
    }

    private HistogramPointData leases(Collected collected) {
        return collected.histogram(BULKHEAD_LEASE_DURATION, NAMED).orElseThrow();
    }

    @Test
    void aSampleOfLeasesKeepsCountsExactAndMeanAndMaxWithinFivePercent() {
        Bulkhead bulkhead = bound(BulwarkTelemetry.create(sdk));
        long[] durations = recordedDistribution();

        callWith(bulkhead, durations);

        Collected collected = Collected.from(reader);
        assertThat(collected.sum(BULKHEAD_CALLS, NAMED.toBuilder().put(BULKHEAD_OUTCOME, "admitted").build()))
                .contains((long) durations.length);
        HistogramPointData leases = leases(collected);
        assertThat(leases.getCount()).as("a sample, not every lease").isLessThan(durations.length / 4)
                .isGreaterThan(durations.length / 200);
        double exactMeanSeconds = Arrays.stream(durations).average().orElseThrow() / 1e9;
        assertThat(leases.getSum() / leases.getCount()).isCloseTo(exactMeanSeconds, within(exactMeanSeconds * 0.05));
        double exactMaxSeconds = Arrays.stream(durations).max().orElseThrow() / 1e9;
        assertThat(leases.getMax()).isCloseTo(exactMaxSeconds, within(exactMaxSeconds * 0.05))
                .isLessThanOrEqualTo(exactMaxSeconds);
        assertThat(ticker.reads.get()).as("far fewer than two clock readings per call")
                .isLessThan(durations.length / 4);
    }

    @Test
    void exactTimingRecordsEveryLease() {
        Bulkhead bulkhead = bound(BulwarkTelemetry.builder(sdk).exactTiming(true).build());
        long[] durations = recordedDistribution();

        callWith(bulkhead, durations);

        HistogramPointData leases = leases(Collected.from(reader));
        assertThat(leases.getCount()).isEqualTo(durations.length);
        assertThat(leases.getSum()).isCloseTo(Arrays.stream(durations).sum() / 1e9, within(1e-6));
        assertThat(ticker.reads.get()).isEqualTo(2L * durations.length);
    }

    @Test
    void fewCallsASecondAreAllRecordedWithoutAskingForIt() {
        Bulkhead bulkhead = bound(BulwarkTelemetry.create(sdk));
        long[] durations = new long[300];
        Arrays.fill(durations, 3_000_000); // 3 ms each, back to back: about 330 calls a second

        callWith(bulkhead, durations);

        HistogramPointData leases = leases(Collected.from(reader));
        assertThat(leases.getCount()).isEqualTo(durations.length);
        assertThat(leases.getSum()).isCloseTo(300 * 0.003, within(1e-9));
    }
}
