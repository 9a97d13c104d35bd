package dev.bulwark;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * Issue 20's adaptive cost goal: an adaptive bulkhead reads the clock only for the calls its limit samples (every
 * call at low call rates, one in up to 64 at high ones), and still counts every drop.
 */
class AdaptiveTimingSamplingTest {

    /** A ticker that moves 1 µs per call of the operation and counts how often it is read. */
    private static final class CountingTicker implements Ticker {
        final AtomicLong now = new AtomicLong();
        final AtomicLong reads = new AtomicLong();

        @Override
        public long read() {
            reads.incrementAndGet();
            return now.get();
        }
    }

    @Test
    void atAHighCallRateOnlySampledCallsReadTheClock() {
        CountingTicker ticker = new CountingTicker();
        Bulkhead bulkhead = Bulkhead.builder().maxConcurrency(16).ticker(ticker)
                .adaptive(AdaptiveLimit.selfTuning().minLimit(16).maxLimit(64).build()).build();
        // A million calls a second: far above the rate at which every call is timed.
        for (int i = 0; i < 50_000; i++) {
            bulkhead.call(() -> ticker.now.addAndGet(1_000L));
        }
        long before = ticker.reads.get();
        for (int i = 0; i < 64_000; i++) {
            bulkhead.call(() -> ticker.now.addAndGet(1_000L));
        }
        long reads = ticker.reads.get() - before;
        // Two reads per timed call, one in 64 timed at this rate (allow for the windows' rounding).
        assertThat(reads).isBetween(64_000L * 2 / 64 / 2, 64_000L * 2 / 32);
    }

    @Test
    void atALowCallRateEveryCallIsTimed() {
        CountingTicker ticker = new CountingTicker();
        Bulkhead bulkhead = Bulkhead.builder().maxConcurrency(16).ticker(ticker)
                .adaptive(AdaptiveLimit.selfTuning().minLimit(16).maxLimit(64).build()).build();
        // A thousand calls a second.
        for (int i = 0; i < 5_000; i++) {
            bulkhead.call(() -> ticker.now.addAndGet(1_000_000L));
        }
        long before = ticker.reads.get();
        for (int i = 0; i < 1_000; i++) {
            bulkhead.call(() -> ticker.now.addAndGet(1_000_000L));
        }
        assertThat(ticker.reads.get() - before).isEqualTo(2_000L);
    }

    @Test
    void untimedDropsStillCutTheLimit() {
        CountingTicker ticker = new CountingTicker();
        Bulkhead bulkhead = Bulkhead.builder().maxConcurrency(40).ticker(ticker)
                .adaptive(AdaptiveLimit.aimd().minLimit(1).maxLimit(40).windowSamples(20)
                        .latencyThreshold(Duration.ofMillis(10)).build()).build();
        for (int i = 0; i < 50_000; i++) {
            bulkhead.call(() -> ticker.now.addAndGet(1_000L));
        }
        int before = bulkhead.maxConcurrency();
        long readsBefore = ticker.reads.get();
        // 60 timeouts in a row: with one call in 64 timed, most of them are untimed, and each is still a drop.
        for (int i = 0; i < 60; i++) {
            try {
                bulkhead.call(() -> {
                    ticker.now.addAndGet(1_000L);
                    throw new TimeoutExceededException("slow", Duration.ofMillis(1));
                });
            } catch (TimeoutExceededException expected) {
                // the operation's own exception, passed through
            }
        }
        assertThat(ticker.reads.get() - readsBefore).as("drops read the clock at release only")
                .isLessThanOrEqualTo(60L + 2L * 60 / 16);
        assertThat(bulkhead.maxConcurrency()).as("windows of drops cut the limit").isLessThan(before);
        // 60 drops make windows of min(windowSamples, limit) = 20 samples: three cuts by 0.9.
        assertThat(bulkhead.maxConcurrency()).isLessThanOrEqualTo((int) Math.round(before * 0.9 * 0.9));
    }
}
