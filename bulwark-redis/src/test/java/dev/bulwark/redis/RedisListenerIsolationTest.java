package dev.bulwark.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.bulwark.BulkheadListener;
import dev.bulwark.BulkheadRejectedException;
import dev.bulwark.Rejection;
import dev.bulwark.Subscription;
import dev.bulwark.redis.testing.RedisFixture;
import dev.bulwark.testing.CapturedLog;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The cluster-wide bulkhead's listeners, core and Redis, are told in order and isolated: one that throws is logged
 * to {@code dev.bulwark.redis.RedisBulkhead} (WARNING once, then DEBUG) and disturbs neither the call nor the
 * listeners after it; core listeners attach and detach at run time.
 */
class RedisListenerIsolationTest {

    @RegisterExtension
    final RedisFixture redis = RedisFixture.perTest();

    private CapturedLog log;

    @BeforeEach
    void captureTheLog() {
        log = CapturedLog.start("dev.bulwark.redis.RedisBulkhead");
    }

    @AfterEach
    void releaseTheLog() {
        log.close();
    }

    @Test
    void aThrowingListenerIsLoggedOnceLoudlyThenQuietlyAndTheOthersStillHearInOrder() {
        List<String> seen = new CopyOnWriteArrayList<>();
        IllegalStateException broken = new IllegalStateException("listener broke");
        RedisBulkhead bulkhead = redis.track(RedisBulkhead.builder(redis.newClient(), "isolated")
                .commandTimeout(Duration.ofMillis(500)).maxConcurrency(1).failureMode(FailureMode.FAIL_OPEN)
                .listener(new BulkheadListener() {
                    @Override
                    public void rejected(Rejection rejection) {
                        seen.add("throwing:rejected");
                        throw broken;
                    }
                })
                .listener(new BulkheadListener() {
                    @Override
                    public void rejected(Rejection rejection) {
                        seen.add("built:rejected");
                    }
                })
                .redisListener(new RedisBulkheadListener() {
                    @Override
                    public void ranWithoutPermit(Throwable cause) {
                        seen.add("throwing:ranWithoutPermit");
                        throw broken;
                    }
                })
                .redisListener(new RedisBulkheadListener() {
                    @Override
                    public void ranWithoutPermit(Throwable cause) {
                        seen.add("after:ranWithoutPermit");
                    }
                }).build());
        Subscription added = bulkhead.addListener(new BulkheadListener() {
            @Override
            public void rejected(Rejection rejection) {
                seen.add("added:rejected");
            }
        });

        bulkhead.run(() -> assertThatThrownBy(() -> bulkhead.run(() -> { }))
                .isInstanceOf(BulkheadRejectedException.class));
        added.close();
        added.close();
        bulkhead.run(() -> assertThatThrownBy(() -> bulkhead.run(() -> { }))
                .isInstanceOf(BulkheadRejectedException.class));
        redis.server().stop();
        assertThat(bulkhead.call(() -> "ran anyway")).isEqualTo("ran anyway");

        assertThat(seen).containsExactly(
                "throwing:rejected", "built:rejected", "added:rejected",
                "throwing:rejected", "built:rejected",
                "throwing:ranWithoutPermit", "after:ranWithoutPermit");
        List<LogRecord> records = log.matching("Listener ", " of bulkhead 'isolated' threw");
        assertThat(records).hasSize(3);
        assertThat(records).allSatisfy(record -> assertThat(record.getLoggerName())
                .isEqualTo("dev.bulwark.redis.RedisBulkhead"));
        assertThat(records.get(0).getLevel()).isEqualTo(Level.WARNING);
        assertThat(records.get(0).getThrown()).isSameAs(broken);
        assertThat(records.get(0).getMessage()).contains("threw on 'rejected'", "later failures are logged at DEBUG");
        assertThat(records.get(1).getLevel().intValue()).isLessThan(Level.INFO.intValue());
        assertThat(records.get(1).getMessage()).contains("threw on 'rejected'").doesNotContain("later failures");
        assertThat(records.get(2).getLevel()).as("the Redis listener's own first failure").isEqualTo(Level.WARNING);
        assertThat(records.get(2).getMessage()).contains("threw on 'ranWithoutPermit'");
    }
}
