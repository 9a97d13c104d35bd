package dev.bulwark;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bulwark.testing.FreshJvm;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Issue 37: a fresh JVM's first calls keep the documented guarantees (see {@link FirstCalls}, run in a new JVM per
 * round). The counts are exact; the time bounds are loose enough for a loaded two-core machine and tight enough for
 * the failures measured before the fix: a first refusal after 309 to 1,087 ms, a first queued call that returned
 * after 227 to 552 ms against a 200 ms max wait, and a burst whose queue-full refusals took up to 880 ms and whose
 * wait timeouts came at 443 to 979 ms.
 */
class FirstCallsTest {

    /** Microseconds: below the 99 ms and more that the failures took before the fix, above a loaded machine's. */
    private static final long FIRST_CALL_BOUND = 60_000;

    @Test
    void aFreshJvmsFirstCallsAreImmediateAndKeepTheirMaxWait() {
        for (int round = 0; round < 3; round++) {
            StringBuilder outputs = new StringBuilder();
            Map<String, Long> figures = new HashMap<>();
            for (String scenario : List.of("refusal", "perKey", "interruptedBuild", "queued", "burst")) {
                FreshJvm.Result run = FreshJvm.run(FirstCalls.class, Duration.ofSeconds(60), List.of(), scenario);
                assertThat(run.exitCode()).as(run.output()).isZero();
                outputs.append(run.output());
                figures.putAll(figures(run.output()));
            }
            String result = outputs.toString();

            // The first queued call returns when the permit is released (20 ms), well inside its 200 ms max wait.
            assertThat(figures.get("cold.queued")).as(result).isLessThan(200_000);
            assertThat(figures).as(result).doesNotContainKey("cold.queuedTimedOut");
            // The burst: 20 ran; the 80 others were refused, 30 at once for a full queue, the rest at their max
            // wait, never before it and not long after. A caller that a loaded machine lets arrive after early
            // waiters may have timed out can find a freed queue place and wait instead: those are counted apart.
            assertThat(figures.get("cold.burst.ran")).as(result).isEqualTo(20);
            assertThat(figures.get("cold.burst.queueFull") + figures.get("cold.burst.timedOut")).as(result)
                    .isEqualTo(80);
            assertThat(figures.get("cold.burst.queueFull")).as(result)
                    .isBetween(30 - figures.get("cold.burst.lateArrivals"), 30L);
            assertThat(figures.get("cold.burst.earliestTimeout")).as(result).isGreaterThanOrEqualTo(200_000);
            assertThat(figures.get("cold.burst.latestTimeout")).as(result).isLessThan(500_000);
            // A refusal for a full queue is immediate: it waits for nothing. The bound of these first calls is
            // 60 ms: the failures before the fix took 99 ms and more, and a CI run at a load average of 13 on two
            // cores saw 20.5 ms for a refusal that takes 0.05 ms on a quiet machine (the thread lost its core).
            assertThat(figures.get("cold.refusal")).as(result).isLessThan(FIRST_CALL_BOUND);
            // A first build on an interrupted thread keeps the flag and still rehearses.
            assertThat(figures.get("cold.interruptKept")).as(result).isEqualTo(1);
            assertThat(figures.get("cold.refusalAfterInterruptedBuild")).as(result).isLessThan(FIRST_CALL_BOUND);
            // A per-key bulkhead builds its first partition on the first call: no first-use cost there either.
            assertThat(figures.get("cold.perKey.firstCall")).as(result).isLessThan(FIRST_CALL_BOUND);
            assertThat(figures.get("cold.perKey.partitionLimit")).as(result).isLessThan(FIRST_CALL_BOUND);
            // Before the fix the queue-full refusals of a fresh JVM's burst took 880 ms: they waited for class set-up.
            assertThat(figures.get("cold.burst.slowestQueueFull")).as(result).isLessThan(100_000);
        }
    }

    private static Map<String, Long> figures(String output) {
        Map<String, Long> figures = new HashMap<>();
        output.lines().filter(line -> line.matches("(cold|warm)\\.[a-zA-Z.]+=\\d+")).forEach(line -> {
            String[] pair = line.split("=");
            figures.put(pair[0], Long.parseLong(pair[1]));
        });
        return figures;
    }
}
