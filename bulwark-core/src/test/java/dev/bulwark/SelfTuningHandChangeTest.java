package dev.bulwark;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bulwark.testing.FakeTicker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@code changeMaxConcurrency} by hand on a {@link AdaptiveLimit#selfTuning()} bulkhead: the algorithm continues
 * from the new value (as {@link AdaptiveLimit} documents for every algorithm), even when the change comes during
 * the first measurement or a re-measurement, which would otherwise pin the limit back.
 */
class SelfTuningHandChangeTest {

    private final FakeTicker ticker = new FakeTicker();

    private Bulkhead selfTuning(int maxConcurrency) {
        return Bulkhead.builder().name("hand").maxConcurrency(maxConcurrency).ticker(ticker)
                .adaptive(AdaptiveLimit.selfTuning().maxLimit(200).build()).build();
    }

    /** One call at a time, each taking {@code latency}: never more than one in flight, so nothing grows. */
    private void sequentialCalls(Bulkhead bulkhead, int calls, Duration latency, List<Integer> limitsSeen) {
        for (int i = 0; i < calls; i++) {
            Permit permit = bulkhead.tryAcquire().orElseThrow();
            ticker.advance(latency);
            permit.close(Permit.Outcome.SUCCESS);
            limitsSeen.add(bulkhead.maxConcurrency());
        }
    }

    /**
     * As many calls as the limit admits (up to 16) at once on a resource that serves 8 at full speed and shares
     * itself beyond that (10 ms each up to 8 in flight, {@code 10 ms * n / 8} above).
     */
    private void round(Bulkhead bulkhead) {
        List<Permit> permits = new ArrayList<>();
        for (int i = 0; i < 16; i++) {
            bulkhead.tryAcquire().ifPresent(permits::add);
        }
        ticker.advance(Duration.ofMillis(10).multipliedBy(Math.max(8, permits.size())).dividedBy(8));
        permits.forEach(permit -> permit.close(Permit.Outcome.SUCCESS));
    }

    @Test
    void aChangeDuringTheFirstMeasurementIsNotPinnedBack() {
        Bulkhead bulkhead = selfTuning(10);
        assertThat(bulkhead.maxConcurrency()).as("pinned for the first measurement").isEqualTo(4);

        bulkhead.changeMaxConcurrency(20);
        List<Integer> seen = new ArrayList<>();
        sequentialCalls(bulkhead, 150, Duration.ofMillis(10), seen); // 1.5 s: before the re-measurement

        assertThat(seen).as("the limit stays where it was put").containsOnly(20);
    }

    @Test
    void withNothingLearntItMeasuresAtThreeQuartersOfTheNewValueAfterTwoSecondsThenResumesThere() {
        Bulkhead bulkhead = selfTuning(10);
        bulkhead.changeMaxConcurrency(20);
        List<Integer> seen = new ArrayList<>();

        sequentialCalls(bulkhead, 600, Duration.ofMillis(10), seen);

        assertThat(seen).as("never pinned back to the first measurement's 4").doesNotContain(4);
        assertThat(seen).as("the re-measurement at three quarters of 20").contains(15);
        int firstProbe = seen.indexOf(15);
        assertThat(firstProbe).as("about 2 s (200 calls of 10 ms) after the change").isBetween(195, 260);
        assertThat(seen.subList(0, firstProbe)).containsOnly(20);
        assertThat(seen.get(seen.size() - 1)).as("resumed at the value set by hand").isEqualTo(20);
    }

    @Test
    void aChangeDuringAReMeasurementEndsIt() {
        Bulkhead bulkhead = selfTuning(10);
        // Learn a reference, settle at the capacity of 8 (8 or 9: a cut from 9 goes to 8), and go on until a
        // re-measurement pins the limit at three quarters (6): no cut near the capacity goes that low.
        int before = bulkhead.maxConcurrency();
        int rounds = 0;
        boolean settled = false;
        while (rounds++ < 5_000) {
            round(bulkhead);
            int now = bulkhead.maxConcurrency();
            if (settled && now == 6 && before >= 8) {
                break;
            }
            settled |= now == 8 || now == 9;
            before = now;
        }
        assertThat(rounds).as("a re-measurement began").isLessThan(5_000);

        bulkhead.changeMaxConcurrency(30);
        List<Integer> seen = new ArrayList<>();
        sequentialCalls(bulkhead, 300, Duration.ofMillis(10), seen);

        assertThat(seen).as("the re-measurement does not resume at its own earlier limit").containsOnly(30);
    }

    @Test
    void aChangeWhileRunningIsWhereTheAlgorithmContinuesFrom() {
        Bulkhead bulkhead = selfTuning(10);
        for (int i = 0; i < 300; i++) {
            round(bulkhead); // past the first measurement and slow start, settled at the capacity
        }
        assertThat(bulkhead.maxConcurrency()).isBetween(8, 9);

        bulkhead.changeMaxConcurrency(5);
        List<Integer> seen = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            round(bulkhead);
            seen.add(bulkhead.maxConcurrency());
        }

        assertThat(seen.get(0)).as("no window closed yet: where it was put").isEqualTo(5);
        assertThat(seen.subList(0, 8)).as("grows from 5 by the running steps (1, then doubling)").isSorted()
                .contains(6).allMatch(limit -> limit >= 5);
    }
}
