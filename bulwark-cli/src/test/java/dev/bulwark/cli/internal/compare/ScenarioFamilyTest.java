package dev.bulwark.cli.internal.compare;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The wider scenario family of {@code bulwark compare --grid} (issue 41): each kind of scenario does to the calls
 * what its name says, measured through gates that count what reaches them. Short virtual runs.
 */
class ScenarioFamilyTest {

    private static final long SECOND = 1_000_000_000L;

    /** A gate that admits calls while fewer than {@code limit} are in, counting attempts per 100 ms. */
    private static final class Counting {
        final long[] attemptsPerTenth;
        long attempts;

        Counting(long durationNanos) {
            attemptsPerTenth = new long[(int) (durationNanos / (SECOND / 10)) + 1];
        }

        Contender limitedTo(int limit) {
            return new Contender("counting", "test", (start, clock) -> new Contender.Gate() {
                private int inside;

                @Override
                public Contender.Ticket tryEnter() {
                    attempts++;
                    attemptsPerTenth[(int) (clock.read() / (SECOND / 10))]++;
                    if (inside >= limit) {
                        return null;
                    }
                    inside++;
                    return dropped -> inside--;
                }

                @Override
                public int limit() {
                    return limit;
                }
            });
        }
    }

    private static CompareRun.Result run(String scenario, long durationNanos, long seed, Contender contender) {
        return new CompareRun(CompareScenario.named(scenario), durationNanos, seed).run(contender);
    }

    @Test
    void theFamilyHasThirtyScenariosEachFoundByItsName() {
        List<CompareScenario> grid = CompareScenario.grid();
        Set<String> names = new HashSet<>();
        for (CompareScenario scenario : grid) {
            assertThat(names.add(scenario.name())).as(scenario.name()).isTrue();
            assertThat(CompareScenario.named(scenario.name())).isSameAs(scenario);
            // Every scenario's work has a mean of 20 ms, so that only the named property differs.
            assertThat(scenario.serviceTime().meanNanos()).as(scenario.name()).isCloseTo(20e6,
                    org.assertj.core.data.Offset.offset(2e3));
        }
        assertThat(grid).hasSize(30);
        assertThat(names).doesNotContainAnyElementsOf(CompareScenario.all().stream().map(CompareScenario::name)
                .toList());
    }

    @Test
    void pausesCostTheFixedLimitGoodput() {
        Counting counting = new Counting(10 * SECOND);
        double steady = run("grid-exp", 10 * SECOND, 3, Contender.fixed(20)).goodputPerSecond();
        double paused = run("grid-pause-500ms", 10 * SECOND, 3, Contender.fixed(20)).goodputPerSecond();
        double slowed = run("grid-slow10-500ms", 10 * SECOND, 3, counting.limitedTo(20)).goodputPerSecond();

        // Three or four pauses of 100-500 ms in 10 s take about a tenth of the downstream's time.
        assertThat(paused).isLessThan(0.97 * steady).isGreaterThan(0.6 * steady);
        assertThat(slowed).isLessThan(0.97 * steady);
    }

    @Test
    void burstyArrivalsKeepTheirMeanRateButComeInBursts() {
        Counting bursty = new Counting(20 * SECOND);
        Counting steady = new Counting(20 * SECOND);
        run("grid-burst-1s", 20 * SECOND, 5, bursty.limitedTo(Integer.MAX_VALUE));
        run("grid-exp", 20 * SECOND, 5, steady.limitedTo(Integer.MAX_VALUE));

        // 1.5 x 20 / 20 ms = 1500 calls/s on average either way.
        assertThat(bursty.attempts).isBetween(20L * 1200, 20L * 1800);
        assertThat(steady.attempts).isBetween(20L * 1400, 20L * 1600);
        long silentTenths = java.util.Arrays.stream(bursty.attemptsPerTenth, 0, 200).filter(n -> n == 0).count();
        long steadySilent = java.util.Arrays.stream(steady.attemptsPerTenth, 0, 200).filter(n -> n == 0).count();
        assertThat(silentTenths).as("100 ms windows without an arrival").isGreaterThan(40);
        assertThat(steadySilent).isZero();
    }

    @Test
    void retryingClientsTurnRefusalsIntoMoreLoad() {
        Counting refused = new Counting(3 * SECOND);
        run("grid-retry-storm", 3 * SECOND, 1, refused.limitedTo(0));
        CompareRun.Result atCapacity = run("grid-retry-storm", 3 * SECOND, 1, Contender.fixed(20));

        // Without retries, 200 clients thinking ~100 ms between calls would try at most ~6,000 times in 3 s.
        // Refused every time, each call is tried 4 times ~10 ms apart before its client thinks again: one cycle
        // is ~130 ms, so ~4,600 calls and ~18,000 attempts.
        assertThat(refused.attempts).isBetween(15_000L, 22_000L);
        // A limit at the capacity serves about what the downstream can (1,000 calls/s).
        assertThat(atCapacity.goodputPerSecond()).isBetween(800.0, 1050.0);
    }

    @Test
    void aStepUpScenarioLoadsBeyondTheNewCapacity() {
        CompareScenario up = CompareScenario.named("grid-step-up-4x");

        assertThat(up.capacities()).containsExactly(20, 80);
        assertThat(up.ratePerSecond()).isCloseTo(1.5 * 80 / 0.02, org.assertj.core.data.Offset.offset(1.0));
        assertThat(up.startLimit()).isEqualTo(20);
    }

    @Test
    void theGridAddsGradient2WithoutItsFloor() {
        List<Contender> grid = Contender.forGrid(20e6);
        Contender floorless = grid.get(grid.size() - 1);

        assertThat(grid.subList(0, grid.size() - 1).stream().map(Contender::name).toList())
                .isEqualTo(Contender.adaptive(20e6).stream().map(Contender::name).toList());
        assertThat(floorless.name()).isEqualTo("netflix Gradient2 minLimit(1)");
        // At a capacity of 2 the default's floor holds Gradient2 at 20; without it the limit comes down.
        int[] limits = run("grid-c2", 10 * SECOND, 1, floorless).limits();
        int[] defaults = run("grid-c2", 10 * SECOND, 1, Contender.adaptive(20e6).get(4)).limits();
        assertThat(defaults[defaults.length - 1]).isGreaterThanOrEqualTo(20);
        assertThat(limits[limits.length - 1]).isLessThan(20);
    }
}
