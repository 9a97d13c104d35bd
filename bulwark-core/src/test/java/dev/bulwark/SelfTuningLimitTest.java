package dev.bulwark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.bulwark.testing.FakeTicker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/**
 * {@link AdaptiveLimit#selfTuning()} through the public API, with a fake ticker: it pins the limit low to measure
 * the baseline, resumes, grows while latency holds, and cuts by the square root of the slowdown when it rises.
 * Its convergence on a real downstream model is checked in virtual time by the CLI's
 * {@code AdaptiveLimitConvergenceTest} and measured by {@code bulwark compare}.
 */
class SelfTuningLimitTest {

    private final FakeTicker ticker = new FakeTicker();

    /** Holds as many permits as the limit allows (at most {@code cap}), then finishes them after {@code latency}. */
    private static void round(Bulkhead bulkhead, FakeTicker ticker, int cap, Duration latency) {
        List<Permit> permits = new ArrayList<>();
        for (int i = 0; i < cap; i++) {
            bulkhead.tryAcquire().ifPresent(permits::add);
        }
        ticker.advance(latency);
        for (Permit permit : permits) {
            permit.close(Permit.Outcome.SUCCESS);
        }
    }

    @Test
    void defaultsNeedNoKnowledgeOfTheResource() {
        SelfTuningLimit limit = AdaptiveLimit.selfTuning().build();

        assertThat(limit.minLimit()).isEqualTo(1);
        assertThat(limit.maxLimit()).isEqualTo(1000);
        assertThat(limit.windowSamples()).isEqualTo(20);
        assertThat(limit.dropWhen().test(new TimeoutExceededException("slow", Duration.ofSeconds(1))))
                .isTrue();
        assertThat(limit.toString()).startsWith("SelfTuning[1..1000");
    }

    @Test
    void badSettingsFailFastNamingTheParameter() {
        assertThatThrownBy(() -> AdaptiveLimit.selfTuning().minLimit(0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("minLimit");
        assertThatThrownBy(() -> AdaptiveLimit.selfTuning().minLimit(5).maxLimit(4).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("maxLimit");
        assertThatThrownBy(() -> AdaptiveLimit.selfTuning().windowSamples(0))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("windowSamples");
        assertThatThrownBy(() -> AdaptiveLimit.selfTuning().dropWhen(null)).isInstanceOf(NullPointerException.class);
    }

    @Test
    void isPinnedForTheFirstMeasurementFromTheMomentItIsBuilt() {
        // No starting limit's worth of calls may get in before the first check: their drain would spoil it.
        assertThat(Bulkhead.builder().maxConcurrency(10).adaptive(AdaptiveLimit.selfTuning().build()).build()
                .maxConcurrency()).isEqualTo(4);
        assertThat(Bulkhead.builder().maxConcurrency(3).adaptive(AdaptiveLimit.selfTuning().build()).build()
                .maxConcurrency()).as("a start below the pinned limit is kept").isEqualTo(3);
        assertThat(Bulkhead.builder().maxConcurrency(10).adaptive(AdaptiveLimit.selfTuning().minLimit(6).build())
                .build().maxConcurrency()).as("never below minLimit").isEqualTo(6);
        assertThat(Bulkhead.builder().maxConcurrency(10).adaptive(AdaptiveLimit.aimd().build()).build()
                .maxConcurrency()).as("other algorithms start where configured").isEqualTo(10);
    }

    @Test
    void measuresAtAPinnedLowLimitFirstThenResumesAndGrowsWhileLatencyHolds() {
        Bulkhead bulkhead = Bulkhead.builder().maxConcurrency(10).ticker(ticker)
                .adaptive(AdaptiveLimit.selfTuning().maxLimit(200).build()).build();

        round(bulkhead, ticker, 10, Duration.ofMillis(10));
        assertThat(bulkhead.maxConcurrency()).as("pinned for the baseline").isEqualTo(4);

        int rounds = 0;
        while (bulkhead.maxConcurrency() <= 10 && rounds++ < 200) {
            round(bulkhead, ticker, 200, Duration.ofMillis(10));
        }
        // Latency never rose: it resumed at 10 and kept growing (slow start).
        assertThat(bulkhead.maxConcurrency()).isGreaterThan(10);
    }

    @Test
    void theFirstMeasurementEndsAfter64CallsAtThePinnedLimitAndSlowStartGrowsAtOnce() {
        // The pinned measurement runs at a fraction of the capacity, so its length is most of the ramp-up's cost:
        // 64 calls (16 rounds of 4), not a probe's 128; slow start and the re-measurements refine it. The
        // measurement is slow start's first window: the limit was in use and nothing dropped, so it grows as soon
        // as the measurement ends, without another window at the pinned limit.
        Bulkhead bulkhead = Bulkhead.builder().maxConcurrency(10).ticker(ticker)
                .adaptive(AdaptiveLimit.selfTuning().maxLimit(200).build()).build();
        assertThat(bulkhead.maxConcurrency()).as("pinned from the start").isEqualTo(4);
        for (int i = 0; i < 15; i++) {
            round(bulkhead, ticker, 200, Duration.ofMillis(10));
            assertThat(bulkhead.maxConcurrency()).as("still measuring after %d calls", 4 * (i + 1)).isEqualTo(4);
        }
        round(bulkhead, ticker, 200, Duration.ofMillis(10));
        assertThat(bulkhead.maxConcurrency()).as("after the 64th call: slow start's first step").isEqualTo(6);
    }

    @Test
    void cutsBySquareRootOfTheSlowdownWhenLatencyRises() {
        Bulkhead bulkhead = Bulkhead.builder().maxConcurrency(40).ticker(ticker)
                .adaptive(AdaptiveLimit.selfTuning().maxLimit(200).build()).build();
        // Baseline: 10 ms at the pinned limit.
        round(bulkhead, ticker, 200, Duration.ofMillis(10));
        assertThat(bulkhead.maxConcurrency()).isEqualTo(4);
        // Slow start from the pinned limit (not a jump back to the starting 40: see the algorithm's notes).
        int previous = 4;
        for (int i = 0; i < 80 && bulkhead.maxConcurrency() < 40; i++) {
            round(bulkhead, ticker, 200, Duration.ofMillis(10));
            assertThat(bulkhead.maxConcurrency()).as("grows, by at most half per window")
                    .isBetween(previous, (int) Math.ceil(previous * 1.5) + 1);
            previous = bulkhead.maxConcurrency();
        }
        int reached = bulkhead.maxConcurrency();
        assertThat(reached).as("grew past the starting limit while latency held").isGreaterThanOrEqualTo(40);

        // Now every call takes 4 times as long: the resource is overloaded by about 2x (slowdown (n/c)^2).
        for (int i = 0; i < 20 && bulkhead.maxConcurrency() >= reached; i++) {
            round(bulkhead, ticker, 200, Duration.ofMillis(40));
        }
        assertThat(bulkhead.maxConcurrency()).as("cut to limit / sqrt(4)")
                .isBetween(reached / 2 - 3, reached / 2 + 3);
    }

    @Test
    void worksWithAQueueAMaximumWaitAndLifoOrder() {
        Bulkhead bulkhead = Bulkhead.builder().maxConcurrency(8).maxQueue(16).maxWait(Duration.ofMillis(50))
                .queueOrder(QueueOrder.LIFO).ticker(ticker)
                .adaptive(AdaptiveLimit.selfTuning().maxLimit(64).build()).build();
        List<CompletableFuture<Permit>> waiting = new ArrayList<>();
        int highestLimit = bulkhead.maxConcurrency();
        for (int i = 0; i < 20; i++) {
            waiting.add(bulkhead.acquireAsync());
        }
        for (int r = 0; r < 50; r++) {
            ticker.advance(Duration.ofMillis(5));
            for (CompletableFuture<Permit> slot : waiting) {
                if (slot.isDone() && !slot.isCompletedExceptionally()) {
                    slot.join().close();
                }
            }
            waiting.removeIf(CompletableFuture::isDone);
            while (waiting.size() < 20) {
                waiting.add(bulkhead.acquireAsync());
            }
            highestLimit = Math.max(highestLimit, bulkhead.maxConcurrency());
            // A cut lets calls in flight finish; no more than the highest limit so far ever run at once.
            assertThat(bulkhead.executingCount()).isLessThanOrEqualTo(highestLimit);
            assertThat(bulkhead.maxConcurrency()).isBetween(1, 64);
            assertThat(bulkhead.queuedCount()).isLessThanOrEqualTo(16);
        }
    }
}
