package dev.bulwark.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.bulwark.BulkheadListener;
import dev.bulwark.BulkheadRejectedException;
import dev.bulwark.Permit;
import dev.bulwark.Rejection;
import dev.bulwark.redis.testing.RedisFixture;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The single-instance behaviour of a cluster-wide bulkhead: admission, refusal, release, exceptions, limits. */
class RedisBulkheadBasicsTest {

    @RegisterExtension
    static final RedisFixture redis = RedisFixture.perClass();

    private static RedisBulkhead.Builder builder(TestInfo test) {
        return RedisBulkhead.builder(redis.newClient(), test.getDisplayName())
                .commandTimeout(RedisFixture.PATIENT);
    }

    private static RedisBulkhead track(RedisBulkhead bulkhead) {
        return redis.track(bulkhead);
    }

    @Test
    void runsAnUncontendedCallAndReleasesItsPermit(TestInfo test) {
        RedisBulkhead bulkhead = track(builder(test).maxConcurrency(2).build());

        String result = bulkhead.call(() -> {
            assertThat(redis.holdersOnServer(bulkhead.name())).isEqualTo(1);
            assertThat(bulkhead.localExecutingCount()).isEqualTo(1);
            return "done";
        });

        assertThat(result).isEqualTo("done");
        await().untilAsserted(() -> assertThat(redis.holdersOnServer(bulkhead.name())).isZero());
        assertThat(bulkhead.localExecutingCount()).isZero();
        assertThat(bulkhead.executingCount()).isZero();
    }

    @Test
    void passesTheOperationsOwnExceptionThroughAndStillReleases(TestInfo test) {
        RedisBulkhead bulkhead = track(builder(test).maxConcurrency(1).build());
        IOException failure = new IOException("disk on fire");

        assertThatThrownBy(() -> bulkhead.call(() -> {
            throw failure;
        })).isSameAs(failure);

        await().untilAsserted(() -> assertThat(redis.holdersOnServer(bulkhead.name())).isZero());
        assertThat(bulkhead.tryAcquire()).isPresent().get().satisfies(Permit::close);
    }

    @Test
    void refusesWithClusterCountsWhenFullAndTheQueueIsFull(TestInfo test) {
        List<Rejection> handled = new CopyOnWriteArrayList<>();
        RedisBulkhead bulkhead = track(builder(test).maxConcurrency(2).onRejected(handled::add).build());
        Permit first = bulkhead.acquire();
        Permit second = bulkhead.acquire();

        assertThatThrownBy(() -> bulkhead.call(() -> "never")).isInstanceOfSatisfying(
                BulkheadRejectedException.class, e -> assertThat(e.rejection()).isEqualTo(new Rejection(
                        bulkhead.name(), Rejection.Reason.QUEUE_FULL, 2, 0, 2, 0, Duration.ZERO)));
        assertThat(handled).hasSize(1);
        assertThat(bulkhead.tryAcquire()).isEmpty();

        first.close();
        second.close();
        first.close();
        assertThat(first.isReleased()).isTrue();
        await().untilAsserted(() -> assertThat(bulkhead.executingCount()).isZero());
    }

    @Test
    void closingAPermitTwiceFreesOneSlot(TestInfo test) {
        RedisBulkhead bulkhead = track(builder(test).maxConcurrency(2).build());
        Permit first = bulkhead.acquire();
        Permit second = bulkhead.acquire();

        first.close();
        first.close();

        await().untilAsserted(() -> assertThat(redis.holdersOnServer(bulkhead.name())).isEqualTo(1));
        assertThat(second.isReleased()).isFalse();
        second.close();
    }

    @Test
    void runsAsyncOperationsAndHoldsThePermitUntilTheirStageCompletes(TestInfo test) throws Exception {
        RedisBulkhead bulkhead = track(builder(test).maxConcurrency(1).build());
        CompletableFuture<String> stage = new CompletableFuture<>();

        CompletableFuture<String> result = bulkhead.callAsync(() -> stage);

        await().untilAsserted(() -> assertThat(redis.holdersOnServer(bulkhead.name())).isEqualTo(1));
        assertThat(result).isNotDone();
        stage.complete("async");
        assertThat(result.get()).isEqualTo("async");
        await().untilAsserted(() -> assertThat(redis.holdersOnServer(bulkhead.name())).isZero());

        IllegalStateException failure = new IllegalStateException("boom");
        CompletableFuture<String> failed = bulkhead.callAsync(() -> CompletableFuture.failedFuture(failure));
        assertThatThrownBy(failed::get).isInstanceOf(ExecutionException.class).hasCauseReference(failure);
        Permit permit = bulkhead.acquireAsync().get();
        permit.close();
    }

    @Test
    void reportsEveryCallToTheCoreListeners(TestInfo test) {
        AtomicInteger admitted = new AtomicInteger();
        AtomicInteger released = new AtomicInteger();
        AtomicInteger rejected = new AtomicInteger();
        RedisBulkhead bulkhead = track(builder(test).maxConcurrency(1).listener(new BulkheadListener() {
            @Override
            public void admitted(long waitedNanos) {
                admitted.incrementAndGet();
            }

            @Override
            public void released(long executionNanos) {
                released.incrementAndGet();
            }

            @Override
            public void rejected(Rejection rejection) {
                rejected.incrementAndGet();
            }
        }).build());

        bulkhead.run(() -> assertThatThrownBy(() -> bulkhead.run(() -> { }))
                .isInstanceOf(BulkheadRejectedException.class));

        assertThat(admitted).hasValue(1);
        assertThat(released).hasValue(1);
        assertThat(rejected).hasValue(1);
    }

    @Test
    void sharesLimitsThroughRedisAndChangesThemForEveryInstance(TestInfo test) {
        RedisBulkhead first = track(builder(test).maxConcurrency(2).maxQueue(1).build());
        RedisBulkhead second = track(builder(test).maxConcurrency(7).maxQueue(5).build());

        assertThat(second.maxConcurrency()).as("the limits Redis already holds win").isEqualTo(2);
        assertThat(second.maxQueue()).isEqualTo(1);

        second.changeMaxConcurrency(3);
        second.changeMaxWait(Duration.ofMillis(1500));
        first.tryAcquire().ifPresent(Permit::close);

        assertThat(first.maxConcurrency()).isEqualTo(3);
        assertThat(first.maxWait()).contains(Duration.ofMillis(1500));
        second.changeMaxWait(null);
        assertThat(second.maxWait()).isEmpty();
        assertThatThrownBy(() -> first.changeMaxConcurrency(0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("maxConcurrency must be at least 1 but was 0");
        assertThatThrownBy(() -> first.changeMaxQueue(-1)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("maxQueue must not be negative but was -1");
    }

    @Test
    void reloadsItsScriptsWhenRedisForgetsThem(TestInfo test) {
        RedisBulkhead bulkhead = track(builder(test).maxConcurrency(1).build());
        bulkhead.run(() -> { });

        redis.inspect().scriptFlush();

        assertThat(bulkhead.call(() -> "after flush")).isEqualTo("after flush");
        // The release got NOSCRIPT too and is re-sent with its source, so it may land after a later command.
        await().untilAsserted(() -> assertThat(redis.holdersOnServer(bulkhead.name())).isZero());
        assertThat(bulkhead.tryAcquire()).isPresent().get().satisfies(Permit::close);
        assertThat(bulkhead.executingCount()).isZero();
    }

    @Test
    void checksItsConfigurationAtOnce() {
        RedisClient client = redis.newClient();
        assertThatThrownBy(() -> RedisBulkhead.builder(client, "a{b}")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'a{b}'");
        assertThatThrownBy(() -> RedisBulkhead.builder(client, null)).isInstanceOf(NullPointerException.class)
                .hasMessage("name");
        // Issue 38 finding 3: a 1 MB name was in every key of every script call.
        assertThat(RedisBulkhead.builder(client, "n".repeat(200))).isNotNull();
        assertThatThrownBy(() -> RedisBulkhead.builder(client, "n".repeat(1_000_000)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("name must be at most 200 characters but was 1000000 characters long");
        RedisBulkhead.Builder builder = RedisBulkhead.builder(client, "config");
        assertThatThrownBy(() -> builder.maxConcurrency(0)).hasMessage("maxConcurrency must be at least 1 but was 0");
        assertThatThrownBy(() -> builder.maxWait(Duration.ZERO)).hasMessage("maxWait must be positive but was PT0S");
        assertThatThrownBy(() -> builder.leaseDuration(Duration.ofSeconds(2)).heartbeatInterval(Duration.ofSeconds(2))
                .build()).isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("heartbeatInterval must be shorter than leaseDuration");

        RedisClient queuing = RedisClient.create(redis.server().uri());
        try {
            queuing.setOptions(ClientOptions.builder().build());
            assertThatThrownBy(() -> RedisBulkhead.builder(queuing, "options").build())
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("reject commands while disconnected");
            queuing.setOptions(ClientOptions.builder()
                    .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS).build());
            assertThatThrownBy(() -> RedisBulkhead.builder(queuing, "options").build())
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("replay");
            // Filtering EVALSHA alone is not enough: a script is re-sent as EVAL after NOSCRIPT.
            queuing.setOptions(ClientOptions.builder()
                    .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
                    .replayFilter(command -> command.getType() == io.lettuce.core.protocol.CommandType.EVALSHA)
                    .build());
            assertThatThrownBy(() -> RedisBulkhead.builder(queuing, "options").build())
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("replay EVAL commands");
        } finally {
            queuing.shutdown();
        }
    }

    @Test
    void tryAcquireNeverQueues(TestInfo test) {
        RedisBulkhead bulkhead = track(builder(test).maxConcurrency(1).maxQueue(5).build());
        Permit held = bulkhead.acquire();

        Optional<Permit> second = bulkhead.tryAcquire();

        assertThat(second).isEmpty();
        assertThat(redis.queuedOnServer(bulkhead.name())).isZero();
        held.close();
    }
}
