package dev.bulwark.internal.timer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.bulwark.Bulkhead;
import dev.bulwark.Pipeline;
import dev.bulwark.Policy;
import dev.bulwark.Retry;
import dev.bulwark.Timeout;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * Issue 20: a million calls through retry + timeout + bulkhead, each with an hour-long deadline on a running wheel,
 * leave nothing filed in the wheel once they are done: every timer cancelled because its call ended is unlinked.
 */
class TimeoutLeakTest {

    @Test
    void aMillionTimeoutsCancelledByTheirCallsLeaveTheWheelEmpty() {
        TimerWheel wheel = new TimerWheel(1_000_000, 512, System::nanoTime).start("timeout-leak-test");
        try {
            Timeout timeout = Timeout.builder().timeout(Duration.ofHours(1)).scheduler(wheel).build();
            Bulkhead bulkhead = Bulkhead.builder().maxConcurrency(4).build();
            Policy stack = Pipeline.of(Retry.builder().maxRetries(2).build(), timeout, bulkhead);
            long sum = 0;
            for (int i = 0; i < 1_000_000; i++) {
                int value = i;
                sum += stack.call(() -> value);
            }
            assertThat(sum).isEqualTo(999_999L * 1_000_000 / 2);
            await().atMost(Duration.ofSeconds(30)).until(() -> wheel.filedCount() == 0);
        } finally {
            wheel.shutdown();
        }
    }
}
