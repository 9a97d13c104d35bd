package dev.bulwark.redis.testing;

import dev.bulwark.CallOptions;
import dev.bulwark.Permit;
import dev.bulwark.redis.RedisBulkhead;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The main class of a second JVM that shares a bulkhead with the test JVM. Commands (arguments):
 * <ul>
 *   <li>{@code calls <redis uri> <name> <threads> <callsPerThread>}: runs the calls through the bulkhead (limit 3)
 *       with the same in-flight check as the test JVM, then prints {@code DONE completed=.. rejected=..
 *       violations=..} and exits.</li>
 *   <li>{@code hold <redis uri> <name> <leaseMillis> <heartbeatMillis> [weight]}: takes one permit (of
 *       {@code weight} slots, default 1), prints {@code HELD <slots>} and keeps it (renewing its lease) until the
 *       process is killed.</li>
 * </ul>
 */
public final class RemoteInstance {

    private RemoteInstance() {
    }

    public static void main(String[] args) throws Exception {
        RedisClient client = RedisClient.create(args[1]);
        client.setOptions(RedisBulkhead.clientOptions());
        switch (args[0]) {
            case "calls" -> calls(client, args[2], Integer.parseInt(args[3]), Integer.parseInt(args[4]));
            case "hold" -> hold(client, args[2], Duration.ofMillis(Long.parseLong(args[3])),
                    Duration.ofMillis(Long.parseLong(args[4])), args.length > 5 ? Integer.parseInt(args[5]) : 1);
            default -> throw new IllegalArgumentException("unknown command " + args[0]);
        }
    }

    private static void calls(RedisClient client, String name, int threads, int callsPerThread) throws Exception {
        RedisBulkhead bulkhead = RedisBulkhead.builder(client, name).maxConcurrency(3).maxQueue(50).build();
        StatefulRedisConnection<String, String> connection = client.connect();
        InFlightCheck check = new InFlightCheck(connection.sync(), name, 3);
        AtomicInteger completed = new AtomicInteger();
        AtomicInteger rejected = new AtomicInteger();
        List<Thread> workers = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            Thread worker = new Thread(() -> {
                for (int i = 0; i < callsPerThread; i++) {
                    try {
                        bulkhead.run(check::insideOperation);
                        completed.incrementAndGet();
                    } catch (RuntimeException refused) {
                        rejected.incrementAndGet();
                    }
                }
            });
            worker.start();
            workers.add(worker);
        }
        for (Thread worker : workers) {
            worker.join();
        }
        System.out.println("DONE completed=" + completed + " rejected=" + rejected + " violations="
                + check.violations());
        System.out.flush();
        bulkhead.close();
        connection.close();
        client.shutdown();
        System.exit(0);
    }

    private static void hold(RedisClient client, String name, Duration lease, Duration heartbeat, int weight)
            throws Exception {
        RedisBulkhead bulkhead = RedisBulkhead.builder(client, name).maxConcurrency(3).maxQueue(10)
                .leaseDuration(lease).heartbeatInterval(heartbeat).pollInterval(heartbeat)
                .commandTimeout(Duration.ofMillis(Math.min(1000, lease.toMillis() / 2))).build();
        Permit permit = bulkhead.acquireWith(CallOptions.weight(weight));
        System.out.println("HELD " + bulkhead.localExecutingCount() + " " + permit);
        System.out.flush();
        Thread.sleep(Long.MAX_VALUE);
    }

    /** Counts, in Redis, the operations running anywhere, and records any moment more than the limit ran. */
    public static final class InFlightCheck {
        private final RedisCommands<String, String> redis;
        private final String key;
        private final String violationsKey;
        private final int limit;

        public InFlightCheck(RedisCommands<String, String> redis, String name, int limit) {
            this.redis = redis;
            this.key = "test:" + name + ":inflight";
            this.violationsKey = "test:" + name + ":violations";
            this.limit = limit;
        }

        /** Called inside each operation, while it holds a permit. */
        public void insideOperation() {
            long now = redis.incr(key);
            try {
                if (now > limit) {
                    redis.incr(violationsKey);
                }
                // Hold the permit a moment so that calls from all clients overlap and contend.
                java.util.concurrent.locks.LockSupport.parkNanos(1_000_000);
            } finally {
                redis.decr(key);
            }
        }

        public long violations() {
            String value = redis.get(violationsKey);
            return value == null ? 0 : Long.parseLong(value);
        }
    }
}
