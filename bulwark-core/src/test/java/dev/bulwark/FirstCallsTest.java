package dev.bulwark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.bulwark.testing.FreshJvm;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Issue 37: a fresh JVM's first calls keep the documented guarantees (see {@link FirstCalls}, run in a new JVM per
 * round). The counts are exact; the time bounds are loose enough for a loaded two-core machine and tight enough for
 * the failures measured before the fix: a first queued call that returned after 267 to 515 ms against a 200 ms max wait, wait timeouts at
 * 260 to 360 ms, and 0 to 10 queue-full refusals where 30 were due.
 */
class FirstCallsTest {

    @Test
    void aFreshJvmsFirstCallsKeepTheirMaxWaitAndRefuseAsManyAsAWarmOne() {
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
            // The burst: exactly the outcomes of the warm round, and timeouts near the max wait.
            assertThat(figures.get("cold.burst.ran")).as(result).isEqualTo(20);
            assertThat(figures.get("cold.burst.queueFull")).as(result).isEqualTo(30);
            assertThat(figures.get("cold.burst.timedOut")).as(result).isEqualTo(50);
            assertThat(figures.get("cold.burst.earliestTimeout")).as(result).isGreaterThanOrEqualTo(200_000);
            // The counts above are the invariant (a timeout decided late would have let the waiter run when the
            // slots freed at 300 ms); the time a caller saw also includes its thread's wake-up on a loaded machine.
            assertThat(figures.get("cold.burst.latestTimeout")).as(result).isLessThan(1_000_000);
            // The warm round, on a loaded machine, may itself let a waiter through late: "within one or two".
            assertThat(figures.get("cold.burst.queueFull")).as(result)
                    .isCloseTo(figures.get("warm.burst.queueFull"), within(2L));
            assertThat(figures.get("cold.burst.timedOut")).as(result)
                    .isCloseTo(figures.get("warm.burst.timedOut"), within(2L));
            // A refusal for a full queue is immediate: it waits for nothing.
            assertThat(figures.get("cold.refusal")).as(result).isLessThan(20_000);
            // A first build on an interrupted thread keeps the flag and still rehearses.
            assertThat(figures.get("cold.interruptKept")).as(result).isEqualTo(1);
            assertThat(figures.get("cold.refusalAfterInterruptedBuild")).as(result).isLessThan(20_000);
            // A per-key bulkhead builds its first partition on the first call: no first-use cost there either.
            assertThat(figures.get("cold.perKey.firstCall")).as(result).isLessThan(20_000);
            assertThat(figures.get("cold.perKey.partitionLimit")).as(result).isLessThan(20_000);
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
