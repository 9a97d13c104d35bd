package dev.bulwark.internal.stats;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.util.Arrays;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/** Issue 20: the lock-free histogram behind the sampled timers. */
class LogLinearHistogramTest {

    @Test
    void bucketsTileTheWholeRangeWithoutGapsAndWithBoundedWidth() {
        for (int index = 0; index < LogLinearHistogram.BUCKETS - 1; index++) {
            long lower = LogLinearHistogram.lowerBound(index);
            long width = LogLinearHistogram.width(index);
            assertThat(LogLinearHistogram.lowerBound(index + 1)).as("bucket %d", index).isEqualTo(lower + width);
            assertThat(LogLinearHistogram.indexOf(lower)).isEqualTo(index);
            assertThat(LogLinearHistogram.indexOf(lower + width - 1)).isEqualTo(index);
            if (lower >= 32) {
                assertThat((double) width / lower).isLessThanOrEqualTo(1.0 / 32);
            }
        }
        assertThat(LogLinearHistogram.indexOf(Long.MAX_VALUE)).isEqualTo(LogLinearHistogram.BUCKETS - 1);
    }

    @Test
    void percentilesAreWithinTwoPercentOfTheExactOnesOfARecordedDistribution() {
        SplittableRandom random = new SplittableRandom(20);
        long[] values = new long[100_000];
        LogLinearHistogram histogram = new LogLinearHistogram();
        for (int i = 0; i < values.length; i++) {
            // Log-normal around 2 ms: the shape of real latencies, over four orders of magnitude.
            values[i] = (long) (2_000_000 * Math.exp(random.nextGaussian() * 1.2));
            histogram.record(values[i]);
        }
        long[] sorted = values.clone();
        Arrays.sort(sorted);
        for (double phi : new double[] {0.01, 0.5, 0.9, 0.95, 0.99, 0.999, 1.0}) {
            long exact = sorted[(int) Math.ceil(phi * sorted.length) - 1];
            assertThat((double) histogram.valueAtPercentile(phi, 0)).as("p%s", phi * 100)
                    .isCloseTo(exact, within(exact * 0.016 + 1));
        }
        assertThat(histogram.max()).isEqualTo(sorted[sorted.length - 1]);
        assertThat(histogram.count()).isEqualTo(values.length);
    }

    @Test
    void unrecordedZerosCountBelowEverything() {
        LogLinearHistogram histogram = new LogLinearHistogram();
        histogram.record(1_000);
        assertThat(histogram.valueAtPercentile(0.5, 3)).isZero();
        assertThat(histogram.valueAtPercentile(0.8, 3)).isCloseTo(1_000L, within(16L));
        assertThat(new LogLinearHistogram().valueAtPercentile(0.99, 0)).isZero();
    }

    @Test
    void aPercentileOutsideZeroToOneIsRefused() {
        assertThatThrownBy(() -> new LogLinearHistogram().valueAtPercentile(1.5, 0))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("phi");
    }

    @Test
    void aConcurrentReaderNeverSeesAPercentileAboveTheMaxNorACountGoingBack() throws Exception {
        LogLinearHistogram histogram = new LogLinearHistogram();
        AtomicBoolean done = new AtomicBoolean();
        AtomicReference<String> violation = new AtomicReference<>();
        CountDownLatch started = new CountDownLatch(2);
        Thread[] writers = new Thread[2];
        for (int w = 0; w < writers.length; w++) {
            int seed = w;
            writers[w] = new Thread(() -> {
                SplittableRandom random = new SplittableRandom(seed);
                started.countDown();
                for (long value = 1; !done.get(); value++) {
                    // Growing values: the newest is always the max, the case the ordering invariant is about.
                    histogram.record(value * 1_000 + random.nextInt(1_000));
                }
            });
            writers[w].start();
        }
        started.await();
        long lastCount = 0;
        for (int i = 0; i < 2_000 && violation.get() == null; i++) {
            long p100 = histogram.valueAtPercentile(1.0, 0);
            long max = histogram.max();
            long count = histogram.count();
            if (p100 > max) {
                violation.set("p100 " + p100 + " above max " + max);
            }
            if (count < lastCount) {
                violation.set("count went back from " + lastCount + " to " + count);
            }
            lastCount = count;
        }
        done.set(true);
        for (Thread writer : writers) {
            writer.join();
        }
        assertThat(violation.get()).isNull();
        assertThat(histogram.count()).isGreaterThan(0);
    }
}
