package dev.bulwark.internal.adaptive;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

/**
 * What {@link SelfTuningLimiter} judges heavy-tailed latencies by: geometric means pooled on the logarithms' scale
 * ({@link LatencyPools}), and drops judged against the share the resource drops anyway
 * ({@link WindowVerdicts#dropsClearlyMore}).
 */
class HeavyTailStatisticsTest {

    private static final double MS = 1e6;

    @Test
    void geometricPoolsAverageTheLogarithmsWhereArithmeticOnesAverageTheLatencies() {
        LatencyPools geometric = new LatencyPools(true);
        LatencyPools arithmetic = new LatencyPools(false);
        for (LatencyPools pools : new LatencyPools[] {geometric, arithmetic}) {
            pools.add(2, 10 * MS, 0.0, 100, 0);
            pools.add(3, 40 * MS, 0.0, 100, 0);
        }

        assertThat(geometric.upTo(3)[0] / MS).isCloseTo(20.0, within(1e-9)); // sqrt(10 * 40)
        assertThat(arithmetic.upTo(3)[0] / MS).isCloseTo(25.0, within(1e-9));
        // The logarithms' spread: ln(40/10) / 2 = 0.693 on either side of the mean, and that is the geometric
        // mean's coefficient of variation.
        assertThat(geometric.upTo(3)[3]).isCloseTo(Math.log(4) / 2, within(1e-9));
        assertThat(geometric.upTo(3)[1]).isCloseTo(20 * MS * Math.log(4) / 2 / Math.sqrt(200), within(1.0));
    }

    @Test
    void aWindowsVarianceOfLogarithmsIsPooledOnTheirScale() {
        LatencyPools geometric = new LatencyPools(true);
        double mean = 20 * MS;
        // A window whose logarithms have variance 0.25 hands over 0.25 times its geometric mean squared.
        geometric.add(1, mean, 0.25 * mean * mean, 1001, 0);

        double[] pooled = geometric.upTo(1);
        assertThat(pooled[0]).isCloseTo(mean, within(1e-3));
        assertThat(pooled[3]).isCloseTo(0.5, within(1e-3));
    }

    @Test
    void dropsAreCountedWithTheirWindowsAndHalvedAndClearedWithThem() {
        LatencyPools pools = new LatencyPools(false);
        pools.add(4, 20 * MS, 0.0, 996, 4);
        pools.add(5, 20 * MS, 0.0, 1000, 0);

        assertThat(pools.upTo(5)[4]).isEqualTo(4.0);
        assertThat(pools.upTo(5)[5]).isEqualTo(2000.0);
        pools.forgetSlowly(31_000_000_000L);
        assertThat(pools.upTo(5)[4]).isEqualTo(2.0);
        pools.clear(4, 4);
        assertThat(pools.upTo(5)[4]).isZero();
        assertThat(pools.upTo(5)[5]).isEqualTo(500.0);
    }

    @Test
    void aDropShareTheResourceShowsAtLowerLimitsIsNoOverload() {
        WindowVerdicts verdicts = verdictsWithReference(2_000, 4); // 0.2% dropped at limits 1 to 8

        assertThat(verdicts.dropsClearlyMore(window(20, 399, 1))).isFalse();
        assertThat(verdicts.dropsClearlyMore(window(20, 398, 2))).isFalse();
    }

    @Test
    void clearlyMoreDropsThanAtLowerLimitsAreOverload() {
        WindowVerdicts verdicts = verdictsWithReference(2_000, 4);

        assertThat(verdicts.dropsClearlyMore(window(20, 380, 20))).isTrue(); // 5% against 0.2%
    }

    @Test
    void aDropEarlyInAWindowIsClearWhenTheResourceNeverDropsAtLowerLimits() {
        WindowVerdicts verdicts = verdictsWithReference(2_000, 0);

        assertThat(verdicts.dropsClearlyMore(window(20, 19, 1))).isTrue();
    }

    @Test
    void everyDropCountsUntilTheReferenceHoldsEnoughCalls() {
        WindowVerdicts verdicts = verdictsWithReference(60, 6);

        assertThat(verdicts.dropsClearlyMore(window(20, 999, 1))).isTrue();
        assertThat(verdicts.dropsClearlyMore(window(20, 1000, 0))).isFalse();
    }

    /** Pools spread over limits 1 to 8, all at or below four fifths of a window at 20: its reference. */
    private static WindowVerdicts verdictsWithReference(int calls, int drops) {
        LatencyPools pools = new LatencyPools(false);
        for (int limit = 1; limit <= 8; limit++) {
            long windowCalls = calls / 8;
            long windowDrops = limit <= drops ? 1 : 0;
            pools.add(limit, 20 * MS, 400 * MS * MS, windowCalls - windowDrops, windowDrops);
        }
        return new WindowVerdicts(pools);
    }

    private static WindowedLimiter.Window window(int limit, long successes, long drops) {
        WindowedLimiter.Window w = new WindowedLimiter.Window();
        w.limit = limit;
        w.samples = successes;
        w.drops = drops;
        w.arithmeticMeanNanos = 20 * MS;
        w.judgeBy(false);
        return w;
    }
}
