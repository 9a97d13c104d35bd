package dev.bulwark.cli.internal.compare;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bulwark.AdaptiveLimit;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/** Runs of {@code bulwark compare} in which {@code selfTuning()} once went wrong, kept as regression tests. */
class SelfTuningRegressionTest {

    private static final long MINUTE = 60_000_000_000L;

    private static CompareRun.Result run(String scenario, long seed) {
        return new CompareRun(CompareScenario.named(scenario), MINUTE, seed)
                .run(Contender.bulwark("selfTuning", start -> AdaptiveLimit.selfTuning().build()));
    }

    @Test
    void theLimitNeverFallsToZero() {
        // c20-pareto, seed 8: a decision with nothing to compare with computed NaN, which the clamp turned into a
        // limit of 0; the bulkhead then admitted nothing and, with no samples, never recovered (goodput 63%).
        CompareRun.Result result = run("c20-pareto", 8L);

        assertThat(Arrays.stream(result.limits()).min().orElseThrow()).isPositive();
        assertThat(Arrays.stream(result.goodputBySecond()).min().orElseThrow()).as("goodput in every second")
                .isPositive();
        assertThat(result.goodputPerSecond()).isGreaterThan(0.9 * 938);
    }

    @Test
    void afterTheCapacityHalvesTheLimitFollowsItDown() {
        // c20-steps, seed 1: after the step from 20 to 10, a probe at three quarters of the limit (still above
        // the new capacity) was taken for the resource's new normal, and the limit stayed near 13 for the rest of
        // the phase.
        CompareRun.Result result = run("c20-steps", 1L);

        assertThat(result.settleSeconds()[0]).isLessThanOrEqualTo(3.0);
        int[] limits = result.limits();
        // Limits sampled every 100 ms: the last 5 s of the capacity-10 phase (35 s to 40 s) stay near 10.
        double mean = Arrays.stream(limits, 350, 400).average().orElseThrow();
        assertThat(mean).isBetween(7.5, 12.5);
    }

    @Test
    void aReferenceLearntLowIsMeasuredAgainSoonerSoTheLimitReachesTheCapacity() {
        // c20-lognormal, seed 7 (capacity 20, oracle fixed 21 at 941 calls/s): the reference came out low, the
        // windows at 18 to 19 stayed undecided because of the reference's own uncertainty, and the limit held
        // there for the rest of the run (91.8% of the oracle). Re-measuring early when the reference is what is
        // unsure brings it to 20 to 22 in the second half.
        CompareRun.Result result = run("c20-lognormal", 7L);

        double lateMean = Arrays.stream(result.limits(), 400, 600).average().orElseThrow();
        assertThat(lateMean).as("mean limit from 40 s to 60 s").isBetween(19.5, 23.5);
        assertThat(result.goodputPerSecond()).isGreaterThan(0.93 * 941);
    }

    @Test
    void afterTheCapacityTriplesEverySeedSettlesWithinThreeSecondsAndHalfOfThemWithinOneAndAHalf() {
        // c20-steps, seeds 1 to 10, the step from 10 to 30: a check after two slower windows resumed at the limit
        // found slower (back above the capacity, checked again: 34 to 42 for seconds), and windows pooled near
        // the old capacity kept the reference 10% high, so the limit stopped at 35 to 38. Seed 3 never settled
        // (it sat at 38, outside the 25% band), and the median was 6.6 s. Fixed, the median was 3.35 s, seeds 2 and
        // 3 took 8.9 and 9.4 s: at 11 to 13 the windows stayed undecided against a reference pooled from few calls
        // (18.9 +- 1.3 ms from 244); a second opinion from all the limits below the window's brings every seed
        // within 4.9 s, median 1.5 s. Seeds 3 and 10 still took 4.0 and 4.9 s: the first windows at 11 after the
        // step measured the resource's 20 ms, clearly faster than the 22.4 ms thousands of calls had measured at 11
        // while the capacity was 10, yet undecided against the thin reference; a window clearly faster than its own
        // limit's pool now counts as clearly not slower, and every seed settles within 2.7 s, median 1.4 s.
        double[] settle = new double[10];
        for (int seed = 1; seed <= 10; seed++) {
            settle[seed - 1] = run("c20-steps", seed).settleSeconds()[1];
        }
        assertThat(Arrays.stream(settle).filter(Double::isNaN).count())
                .as("seeds that never settled after the step up: %s", Arrays.toString(settle)).isZero();
        assertThat(Arrays.stream(settle).max().orElseThrow()).as("slowest of %s", Arrays.toString(settle))
                .isLessThanOrEqualTo(3.0);
        Arrays.sort(settle);
        assertThat((settle[4] + settle[5]) / 2).as("median of %s", Arrays.toString(settle)).isLessThanOrEqualTo(1.5);
    }

    @Test
    void atACapacityOfTwoTheFirstMeasurementsOverloadIsCaughtAndReMeasuringCostsLittle() {
        // grid-c2 (capacity 2, start 5), seeds 1 to 5: the first measurement, pinned at 4, read 50 to 60 ms of a
        // 20 ms resource (twice the capacity), and that reference held the limit at 4 to 5 until the first
        // periodic re-measurement; afterwards re-measurements at 1 every 10 s halved the goodput for two and a
        // half seconds each. 86.1% of the oracle's goodput, worst seed 77.9%. Checked at once when slow start's
        // first step is slower, and re-measured no more often than costs 1% of the goodput: 95.3%, worst 93.8%.
        double[] shares = new double[5];
        for (int seed = 1; seed <= 5; seed++) {
            double oracle = new CompareRun(CompareScenario.named("grid-c2"), MINUTE, seed).run(Contender.fixed(2))
                    .goodputPerSecond();
            shares[seed - 1] = run("grid-c2", seed).goodputPerSecond() / oracle;
        }
        assertThat(Arrays.stream(shares).average().orElseThrow()).as("mean of %s", Arrays.toString(shares))
                .isGreaterThanOrEqualTo(0.94);
        assertThat(Arrays.stream(shares).min().orElseThrow()).as("worst of %s", Arrays.toString(shares))
                .isGreaterThanOrEqualTo(0.92);
    }
}
