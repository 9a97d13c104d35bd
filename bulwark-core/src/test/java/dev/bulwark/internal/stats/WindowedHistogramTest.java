package dev.bulwark.internal.stats;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.time.Duration;
import java.util.Arrays;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/** Issue 40: maxima and percentiles over a window rotating like Micrometer's distribution statistics. */
class WindowedHistogramTest {

    private static final Duration EXPIRY = Duration.ofMinutes(2);
    private static final long SLICE = EXPIRY.toNanos() / 3;

    private final AtomicLong clock = new AtomicLong(1_000L);
    private final WindowedHistogram histogram = new WindowedHistogram(clock::get, EXPIRY, 3);
    private final WindowedMax max = new WindowedMax(clock::get, EXPIRY, 3);

    private void advance(long nanos) {
        clock.addAndGet(nanos);
    }

    private void record(long value) {
        histogram.record(value);
        max.record(value);
    }

    @Test
    void aSlowValueLeavesTheMaxOnceTheWindowHasPassed() {
        record(5_000_000_000L);
        record(1_000L);
        assertThat(histogram.max()).isEqualTo(5_000_000_000L);
        assertThat(max.max()).isEqualTo(5_000_000_000L);

        advance(EXPIRY.toNanos() - 1);
        assertThat(histogram.max()).as("still within the window").isEqualTo(5_000_000_000L);
        assertThat(max.max()).isEqualTo(5_000_000_000L);

        advance(1);
        assertThat(histogram.max()).as("a window after it was recorded").isZero();
        assertThat(max.max()).isZero();
        assertThat(histogram.valueAtPercentile(0.99)).isZero();
    }

    @Test
    void aValueStaysUntilItsSliceLeavesTheWindowAsInMicrometer() {
        advance(SLICE / 2);
        record(7_000L);
        advance(SLICE / 2 + 2 * SLICE - 1); // the last instant of the third slice
        assertThat(max.max()).isEqualTo(7_000L);
        assertThat(histogram.max()).isEqualTo(7_000L);
        advance(1);
        assertThat(max.max()).isZero();
        assertThat(histogram.max()).isZero();
    }

    @Test
    void aLongPauseClearsEverythingOlderThanTheWindowAndKeepsWhatCameAfterIt() {
        record(9_000L);
        advance(10 * EXPIRY.toNanos());
        record(3_000L); // no read since the pause: the recorder rotates
        assertThat(histogram.max()).isEqualTo(3_000L);
        assertThat(max.max()).isEqualTo(3_000L);
        advance(10 * EXPIRY.toNanos());
        assertThat(histogram.max()).isZero();
        assertThat(max.max()).isZero();
        record(3_000L);
        assertThat(histogram.max()).isEqualTo(3_000L);
        assertThat(max.max()).isEqualTo(3_000L);
    }

    @Test
    void percentilesReflectOnlyTheValuesInTheWindowWithinTheBucketsResolution() {
        for (int i = 0; i < 1_000; i++) {
            record(50_000_000L); // a slow start: 50 ms each
        }
        advance(EXPIRY.toNanos());
        SplittableRandom random = new SplittableRandom(40);
        long[] recent = new long[20_000];
        for (int i = 0; i < recent.length; i++) {
            recent[i] = 100_000 + random.nextInt(900_000); // 0.1 to 1 ms
            record(recent[i]);
            if (i % 5_000 == 0) {
                advance(SLICE / 4); // recorded across slices, all within the window
                histogram.max();
            }
        }
        long[] sorted = recent.clone();
        Arrays.sort(sorted);
        for (double phi : new double[] {0.5, 0.95, 0.99, 1.0}) {
            long exact = sorted[(int) Math.ceil(phi * sorted.length) - 1];
            assertThat((double) histogram.valueAtPercentile(phi)).as("p%s", phi * 100)
                    .isCloseTo(exact, within(exact * 0.016 + 1));
        }
        assertThat(histogram.max()).isEqualTo(sorted[sorted.length - 1]);
    }

    @Test
    void badWindowsFailAtOnceNamingTheParameter() {
        assertThatThrownBy(() -> new WindowedHistogram(clock::get, Duration.ZERO, 3))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("expiry");
        assertThatThrownBy(() -> new WindowedMax(clock::get, EXPIRY, 0))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("bufferLength");
        assertThatThrownBy(() -> new WindowedMax(clock::get, null, 3))
                .isInstanceOf(NullPointerException.class).hasMessageContaining("expiry");
    }

    /**
     * The race: recorders never stop while readers rotate the ring every read. Whatever a reader sees, a percentile
     * is never above the max it reads afterwards by more than a bucket's width, and no value ever recorded is
     * reported above the largest value recorded.
     */
    @Test
    void concurrentRecordingAndRotationNeverReportsAValueThatWasNotRecorded() throws Exception {
        AtomicBoolean stop = new AtomicBoolean();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        CountDownLatch started = new CountDownLatch(2);
        Runnable recorder = () -> {
            SplittableRandom random = new SplittableRandom(Thread.currentThread().getId());
            started.countDown();
            while (!stop.get()) {
                record(1_000 + random.nextInt(1_000_000));
            }
        };
        Thread first = new Thread(recorder);
        Thread second = new Thread(recorder);
        first.start();
        second.start();
        started.await();
        try {
            for (int i = 0; i < 2_000; i++) {
                advance(SLICE / 7);
                long p99 = histogram.valueAtPercentile(0.99);
                long seenMax = histogram.max();
                assertThat(p99).isLessThanOrEqualTo(1_001_000L);
                assertThat(seenMax).isLessThanOrEqualTo(1_001_000L);
                assertThat(max.max()).isLessThanOrEqualTo(1_001_000L);
            }
        } catch (Throwable t) {
            failure.set(t);
        } finally {
            stop.set(true);
            first.join();
            second.join();
        }
        assertThat(failure.get()).isNull();
        record(1_234L);
        advance(EXPIRY.toNanos());
        assertThat(histogram.max()).as("everything recorded is a window old").isZero();
        record(2_000L);
        assertThat(histogram.max()).as("quiet again: exactly the window's values").isEqualTo(2_000L);
        assertThat(histogram.valueAtPercentile(0.5)).isCloseTo(2_000L, within(32L));
    }
}
