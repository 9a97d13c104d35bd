package dev.bulwark.redis;

import dev.bulwark.BulkheadRejectedException;
import dev.bulwark.Permit;
import dev.bulwark.Rejection;
import dev.bulwark.ThrowingSupplier;
import dev.bulwark.testing.FirstUseMeter;
import dev.bulwark.testing.FreshJvm;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * The child program of {@link RedisFirstCallsTest}: a fresh JVM's first calls through a {@link RedisBulkhead},
 * timed on the caller's thread, as issue 37 measured the in-process bulkhead's. Its arguments are the port of a
 * running {@code redis-server}, a prefix that keeps this JVM's bulkhead names apart from other runs', and the one
 * scenario this JVM runs, so that each meets a cold JVM. Prints the {@link FirstUseMeter} figures (wall time,
 * classes loaded, CPU time) of each step for the first (cold) round and then a second (warm) round in the same JVM,
 * each on newly built bulkheads:
 * <ul>
 *   <li>{@code build}: building the round's bulkhead (the cold one includes the client's first connection);</li>
 *   <li>{@code admitted}: the round's first call, a permit free at once (one round trip), which the scenario then
 *       holds;</li>
 *   <li>{@code refusal}: a sync call refused for a full queue (limit 1, queue 0, one permit held): one round trip;</li>
 *   <li>{@code asyncRefusal}: the same through {@code callAsync}, until the caller's {@code join} returns;</li>
 *   <li>{@code grant}: a sync call queued behind a permit that another thread closes 20 ms later (limit 1,
 *       queue 1, max wait 500 ms): about 20 ms plus two round trips;</li>
 *   <li>{@code asyncGrant}: the same through {@code callAsync};</li>
 *   <li>{@code timeout}: then, in the {@code grant} scenario, a sync call queued behind a permit nobody closes
 *       (max wait 100 ms): refused {@code WAIT_TIMEOUT} after about 100 ms, the first wait timeout of the JVM.</li>
 * </ul>
 * A line {@code round.unexpected=1} reports an outcome the scenario did not expect.
 */
public final class RedisFirstCalls {

    private static final ScheduledExecutorService LATER = Executors.newSingleThreadScheduledExecutor(runnable -> {
        Thread thread = new Thread(runnable, "redis-first-calls-releaser");
        thread.setDaemon(true);
        return thread;
    });

    /** The operations, made before anything is timed: their lambdas are the test's, not the library's first use. */
    private static final ThrowingSupplier<Integer, RuntimeException> SYNC = () -> 1;
    private static final Supplier<CompletableFuture<Integer>> ASYNC = () -> CompletableFuture.completedFuture(1);

    private RedisFirstCalls() {
    }

    /**
     * Runs both rounds.
     *
     * @param args the Redis port, a name prefix and the scenario
     * @throws Exception never expected
     */
    public static void main(String[] args) throws Exception {
        FreshJvm.watchdog(Duration.ofSeconds(40));
        int port = Integer.parseInt(args[0]);
        String prefix = args[1];
        String scenario = args[2];
        // The scheduler that plays the other thread's release is a JDK one, started before anything is timed.
        LATER.schedule(() -> { }, 0, TimeUnit.MILLISECONDS).get();
        long started = System.nanoTime();
        RedisClient client = RedisClient.create(RedisURI.create("redis://127.0.0.1:" + port));
        client.setOptions(RedisBulkhead.clientOptions());
        print("cold", "client", micros(started));
        try {
            for (String round : new String[] {"cold", "warm"}) {
                String name = prefix + "-" + scenario + "-" + round;
                switch (scenario) {
                    case "refusal" -> refusal(client, name, round, false);
                    case "asyncRefusal" -> refusal(client, name, round, true);
                    case "grant" -> {
                        grant(client, name, round, false);
                        timeout(client, name + "-timeout", round);
                    }
                    case "asyncGrant" -> grant(client, name, round, true);
                    default -> throw new IllegalArgumentException(scenario);
                }
            }
        } finally {
            client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
        }
        System.out.flush();
        System.exit(0);
    }

    private static RedisBulkhead build(RedisClient client, String name, String round, int maxQueue,
                                       Duration maxWait) {
        long started = System.nanoTime();
        RedisBulkhead.Builder builder = RedisBulkhead.builder(client, name).maxConcurrency(1).maxQueue(maxQueue)
                .commandTimeout(Duration.ofSeconds(5));
        if (maxWait != null) {
            builder.maxWait(maxWait);
        }
        RedisBulkhead bulkhead = builder.build();
        print(round, "build", micros(started));
        return bulkhead;
    }

    private static void refusal(RedisClient client, String name, String round, boolean async) {
        try (RedisBulkhead bulkhead = build(client, name, round, 0, null)) {
            Permit held = firstAcquire(bulkhead, round);
            FirstUseMeter.Section section = FirstUseMeter.start();
            Rejection.Reason reason = null;
            try {
                if (async) {
                    bulkhead.callAsync(ASYNC).join();
                } else {
                    bulkhead.call(SYNC);
                }
            } catch (BulkheadRejectedException refused) {
                reason = refused.rejection().reason();
            } catch (CompletionException failed) {
                if (failed.getCause() instanceof BulkheadRejectedException refused) {
                    reason = refused.rejection().reason();
                }
            }
            section.stop(round, async ? "asyncRefusal" : "refusal");
            expect(round, reason == Rejection.Reason.QUEUE_FULL);
            held.close();
        }
    }

    private static void grant(RedisClient client, String name, String round, boolean async) {
        try (RedisBulkhead bulkhead = build(client, name, round, 1, Duration.ofMillis(500))) {
            Permit held = firstAcquire(bulkhead, round);
            Runnable release = held::close;
            FirstUseMeter.Section section = FirstUseMeter.start();
            LATER.schedule(release, 20, TimeUnit.MILLISECONDS);
            boolean ran = false;
            try {
                if (async) {
                    ran = bulkhead.callAsync(ASYNC).join() == 1;
                } else {
                    ran = bulkhead.call(SYNC) == 1;
                }
            } catch (RuntimeException refused) {
                System.out.println(round + " grant refused: " + refused);
            }
            section.stop(round, async ? "asyncGrant" : "grant");
            expect(round, ran);
        }
    }

    private static void timeout(RedisClient client, String name, String round) {
        try (RedisBulkhead bulkhead = build(client, name, round, 1, Duration.ofMillis(100))) {
            // Not timed: the round's first admission was the grant scenario's.
            Permit held = bulkhead.acquire();
            FirstUseMeter.Section section = FirstUseMeter.start();
            Rejection.Reason reason = null;
            try {
                bulkhead.call(SYNC);
            } catch (BulkheadRejectedException refused) {
                reason = refused.rejection().reason();
            }
            section.stop(round, "timeout");
            expect(round, reason == Rejection.Reason.WAIT_TIMEOUT);
            held.close();
        }
    }

    /** The permit the scenario holds: the round's first call, admitted at once (one round trip). */
    private static Permit firstAcquire(RedisBulkhead bulkhead, String round) {
        FirstUseMeter.Section section = FirstUseMeter.start();
        Permit held = bulkhead.acquire();
        section.stop(round, "admitted");
        return held;
    }

    private static void expect(String round, boolean expected) {
        if (!expected) {
            print(round, "unexpected", 1);
        }
    }

    private static long micros(long startedNanos) {
        return (System.nanoTime() - startedNanos) / 1000;
    }

    private static void print(String round, String figure, long value) {
        FirstUseMeter.print(round, figure, value);
    }
}
