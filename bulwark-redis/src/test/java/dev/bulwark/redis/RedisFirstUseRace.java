package dev.bulwark.redis;

import dev.bulwark.BulkheadListener;
import dev.bulwark.BulkheadRejectedException;
import dev.bulwark.CancellationSignal;
import dev.bulwark.Permit;
import dev.bulwark.testing.FreshJvm;
import dev.bulwark.testing.FreshJvmRace;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * A fresh JVM's first calls through {@link RedisBulkhead}s, raced (the child program of
 * {@link RedisFirstUseRaceTest}): the bulkheads are built and put where each entry point takes its path, then one
 * latch releases a thread per entry point, so that the first sync and async refusal (with and without an overflow
 * handler and listeners), admission, grant after a wait, wait timeout, cancellation, drain, count and limit change
 * of the JVM all run, and load their classes, at the same moment. Outcomes that depend on who wins the race (who
 * is granted first) are all accepted: only a hang or an unexpected exception fails. Argument: the port of a
 * running {@code redis-server}.
 */
public final class RedisFirstUseRace {

    private RedisFirstUseRace() {
    }

    /**
     * Runs the race.
     *
     * @param args the Redis port
     * @throws Exception never expected
     */
    public static void main(String[] args) throws Exception {
        FreshJvm.watchdog(Duration.ofSeconds(60));
        RedisClient client = RedisClient.create(RedisURI.create("redis://127.0.0.1:" + args[0]));
        client.setOptions(RedisBulkhead.clientOptions());
        // Names of this JVM's own: a bulkhead left held by an earlier round's JVM stays held for its lease.
        String prefix = "race-" + UUID.randomUUID();
        List<Runnable> callers = new ArrayList<>();

        RedisBulkhead full = builder(client, prefix + "-full").maxConcurrency(1).build();
        full.acquire();
        RedisBulkhead observed = builder(client, prefix + "-observed").maxConcurrency(1)
                .onRejected(rejection -> { }).listener(new BulkheadListener() { })
                .redisListener(new RedisBulkheadListener() { }).build();
        observed.acquire();
        for (int i = 0; i < 2; i++) {
            callers.add(() -> refused(() -> full.call(() -> 1)));
            callers.add(() -> refused(() -> full.callAsync(() -> CompletableFuture.completedFuture(1)).join()));
            callers.add(() -> refused(() -> observed.call(() -> 1)));
            callers.add(() -> refused(() -> observed.callAsync(() -> CompletableFuture.completedFuture(1)).join()));
        }

        RedisBulkhead free = builder(client, prefix + "-free").maxConcurrency(8).build();
        callers.add(() -> free.call(() -> 1));
        callers.add(() -> free.callAsync(() -> CompletableFuture.completedFuture(1)).join());
        callers.add(() -> free.tryAcquire().ifPresent(Permit::close));
        callers.add(() -> free.acquireAsync().join().close());
        callers.add(free::executingCount);

        RedisBulkhead queueing = builder(client, prefix + "-queueing").maxConcurrency(1).maxQueue(6)
                .maxWait(Duration.ofMillis(300)).build();
        Permit queueingHeld = queueing.acquire();
        callers.add(() -> {
            // Queues, then frees the held slot: granted (itself or another waiter first) or timed out.
            CompletableFuture<Integer> queued = queueing.callAsync(() -> CompletableFuture.completedFuture(1));
            queueingHeld.close();
            mayBeRefused(queued::join);
        });
        callers.add(() -> mayBeRefused(() -> queueing.call(() -> 1)));
        callers.add(() -> {
            CancellationSignal signal = CancellationSignal.create();
            CompletableFuture<Permit> waiting = queueing.acquireAsync(signal);
            signal.cancel();
            mayBeRefused(() -> waiting.join().close());
        });
        callers.add(() -> {
            CompletableFuture<Permit> waiting = queueing.acquireAsync();
            waiting.cancel(false);
        });

        RedisBulkhead draining = builder(client, prefix + "-draining").maxConcurrency(2).build();
        callers.add(() -> {
            draining.drain(Duration.ZERO);
            refused(() -> draining.call(() -> 1));
        });
        callers.add(() -> free.changeMaxQueue(1));

        FreshJvmRace.race(callers, Duration.ofSeconds(30));
        System.exit(0);
    }

    private static RedisBulkhead.Builder builder(RedisClient client, String name) {
        return RedisBulkhead.builder(client, name).commandTimeout(Duration.ofSeconds(5));
    }

    private static void refused(Runnable call) {
        try {
            call.run();
            throw new AssertionError("not refused");
        } catch (BulkheadRejectedException expected) {
            expected.rejection();
        } catch (CompletionException expected) {
            if (!(expected.getCause() instanceof BulkheadRejectedException)) {
                throw expected;
            }
        }
    }

    /** A call whose outcome depends on the race: run, refused or cancelled are all fine. */
    private static void mayBeRefused(Runnable call) {
        try {
            call.run();
        } catch (BulkheadRejectedException | CompletionException | java.util.concurrent.CancellationException e) {
            // The race decided against this caller: refused (timed out) or cancelled, as it asked.
        }
    }
}
