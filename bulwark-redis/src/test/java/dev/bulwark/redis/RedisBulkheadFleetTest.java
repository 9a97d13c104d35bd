package dev.bulwark.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.bulwark.BulkheadListener;
import dev.bulwark.Permit;
import dev.bulwark.redis.testing.RedisFixture;
import dev.bulwark.redis.testing.RemoteInstance;
import dev.bulwark.redis.testing.RemoteProcess;
import io.lettuce.core.ScoredValue;
import io.lettuce.core.api.sync.RedisCommands;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Several instances, in this JVM and in a second one, sharing one bulkhead. */
class RedisBulkheadFleetTest {

    @RegisterExtension
    static final RedisFixture redis = RedisFixture.perClass();

    @Test
    void theLimitHoldsAcrossFourClientsAndASecondJvmAndEveryCallIsAccountedFor() throws Exception {
        String name = "fleet";
        int clients = 4;
        int threadsPerClient = 2;
        int callsPerThread = 40;
        AtomicInteger admitted = new AtomicInteger();
        AtomicInteger released = new AtomicInteger();
        BulkheadListener counting = new BulkheadListener() {
            @Override
            public void admitted(long waitedNanos) {
                admitted.incrementAndGet();
            }

            @Override
            public void released(long executionNanos) {
                released.incrementAndGet();
            }
        };
        List<RedisBulkhead> instances = new ArrayList<>();
        for (int i = 0; i < clients; i++) {
            instances.add(redis.track(RedisBulkhead.builder(redis.newClient(), name).maxConcurrency(3).maxQueue(50)
                    .listener(counting).build()));
        }
        // Counting holders on the server from the outside, all along.
        AtomicBoolean running = new AtomicBoolean(true);
        AtomicLong mostHoldersSeen = new AtomicLong();
        Thread monitor = new Thread(() -> {
            RedisCommands<String, String> inspector = redis.newClient().connect().sync();
            while (running.get()) {
                mostHoldersSeen.accumulateAndGet(inspector.zcard("bulwark:{" + name + "}:holders"), Math::max);
                LockSupport.parkNanos(500_000);
            }
        });
        monitor.start();

        try (RemoteProcess remote = RemoteProcess.start("calls", redis.server().uri(), name, "3",
                Integer.toString(callsPerThread))) {
            AtomicInteger completed = new AtomicInteger();
            AtomicInteger rejected = new AtomicInteger();
            List<Thread> workers = new ArrayList<>();
            for (RedisBulkhead instance : instances) {
                RemoteInstance.InFlightCheck check = new RemoteInstance.InFlightCheck(
                        redis.newClient().connect().sync(), name, 3);
                for (int t = 0; t < threadsPerClient; t++) {
                    Thread worker = new Thread(() -> {
                        for (int i = 0; i < callsPerThread; i++) {
                            try {
                                instance.run(check::insideOperation);
                                completed.incrementAndGet();
                            } catch (RuntimeException refused) {
                                rejected.incrementAndGet();
                            }
                        }
                    });
                    worker.start();
                    workers.add(worker);
                }
            }
            for (Thread worker : workers) {
                worker.join(120_000);
            }
            String done = remote.awaitLine("DONE", Duration.ofSeconds(120));
            running.set(false);
            monitor.join(10_000);

            Matcher remoteCounts = Pattern.compile("completed=(\\d+) rejected=(\\d+) violations=(\\d+)").matcher(done);
            assertThat(remoteCounts.find()).as(done).isTrue();
            int local = clients * threadsPerClient * callsPerThread;
            assertThat(completed.get() + rejected.get()).isEqualTo(local);
            assertThat(rejected).as("the queue always had room").hasValue(0);
            assertThat(Integer.parseInt(remoteCounts.group(1))).isEqualTo(3 * callsPerThread);
            assertThat(Integer.parseInt(remoteCounts.group(2))).isZero();
            assertThat(redis.inspect().get("test:" + name + ":violations")).as("more than 3 ran at once").isNull();
            assertThat(mostHoldersSeen.get()).isBetween(1L, 3L);
            assertThat(admitted).hasValue(local);
            assertThat(released).hasValue(local);
            await().untilAsserted(() -> {
                assertThat(redis.holdersOnServer(name)).isZero();
                assertThat(redis.queuedOnServer(name)).isZero();
            });
        } finally {
            running.set(false);
        }
    }

    @Test
    void aKilledHolderInASecondJvmGivesItsPermitBackWithinOneLease() throws Exception {
        String name = "killed-holder";
        long leaseMillis = 1500;
        try (RemoteProcess remote = RemoteProcess.start("hold", redis.server().uri(), name,
                Long.toString(leaseMillis), "300")) {
            remote.awaitLine("HELD", Duration.ofSeconds(60));
            RedisBulkhead local = redis.track(RedisBulkhead.builder(redis.newClient(), name).maxQueue(10).build());
            local.changeMaxConcurrency(1);
            RedisCommands<String, String> inspector = redis.inspect();
            String holdersKey = "bulwark:{" + name + "}:holders";
            ScoredValue<String> held = inspector.zrangeWithScores(holdersKey, 0, -1).get(0);
            // The live holder renews its lease: its expiry moves forward.
            await().atMost(Duration.ofSeconds(10)).until(
                    () -> inspector.zscore(holdersKey, held.getValue()) > held.getScore());
            CompletableFuture<Permit> waiting = local.acquireAsync();
            await().untilAsserted(() -> assertThat(redis.queuedOnServer(name)).isEqualTo(1));

            remote.kill();
            List<String> time = inspector.time();
            long killedAtMillis = Long.parseLong(time.get(0)) * 1000 + Long.parseLong(time.get(1)) / 1000;
            double expiry = inspector.zscore(holdersKey, held.getValue());

            assertThat(expiry - killedAtMillis).as("the dead holder's lease runs out within one lease")
                    .isLessThanOrEqualTo(leaseMillis);
            Permit permit = waiting.get(30, TimeUnit.SECONDS);
            assertThat(inspector.zscore(holdersKey, held.getValue())).as("the dead holder's permit is gone").isNull();
            assertThat(redis.holdersOnServer(name)).isEqualTo(1);
            permit.close();
        }
    }
}
