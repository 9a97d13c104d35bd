package dev.bulwark.redis.testing;

import dev.bulwark.BulkheadListener;
import dev.bulwark.BulkheadRejectedException;
import dev.bulwark.redis.RedisBulkhead;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.DefaultClientResources;
import io.lettuce.core.resource.Delay;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * The main class of one JVM of a test fleet: {@code threads} threads call one {@link RedisBulkhead} in a loop
 * until a stop file appears (or {@code maxMillis} pass), and every call is written to a log file, one line each:
 * {@code <thread> <seq> <askedMicros> <startedMicros> <endedMicros> <outcome>} in epoch microseconds (started and
 * ended are -1 for a refused call; the outcome is {@code OK}, the rejection reason, or {@code ERR:<exception>}).
 * Those logs, read by {@link CallLog} in the test JVM, are the in-flight count kept outside the bulkhead: every JVM
 * runs on the same machine, so their wall clocks agree.
 *
 * <p>Arguments are {@code key=value}: {@code mode} ({@code standalone} with {@code target} a redis URI,
 * {@code sentinel} with {@code target=<master>@host:port,host:port,...}, {@code cluster} with {@code target} a
 * comma-separated list of node URIs), {@code name}, {@code threads}, {@code limit}, {@code queue},
 * {@code holdMicros}, {@code stopFile}, {@code log}, {@code maxMillis}, {@code leaseMillis},
 * {@code heartbeatMillis}, {@code commandTimeoutMillis}, {@code leasedMillis} (the leased mode with that renewal
 * period; the exact mode when absent), {@code reconnectMaxMillis} (the upper bound of Lettuce's
 * exponential reconnect delay; Lettuce's own default, 30 s, when absent). Cluster clients use
 * {@code RedisBulkhead.clusterClientOptions()}, which refresh the topology.
 *
 * <p>Prints {@code READY} once the bulkhead is built, {@code STATUS completed=<n> lastStarted=<micros>} every
 * 100 ms, and at the end {@code DONE attempts=.. completed=.. refused=.. errors=.. admitted=.. released=..}
 * (the last two counted by a {@link BulkheadListener}).
 */
public final class FleetWorker {

    private FleetWorker() {
    }

    /** Epoch microseconds; {@code Instant.now()} has microsecond precision on Linux. */
    public static long nowMicros() {
        Instant now = Instant.now();
        return now.getEpochSecond() * 1_000_000L + now.getNano() / 1_000;
    }

    public static void main(String[] args) throws Exception {
        Map<String, String> options = new HashMap<>();
        for (String arg : args) {
            int eq = arg.indexOf('=');
            options.put(arg.substring(0, eq), arg.substring(eq + 1));
        }
        DefaultClientResources.Builder resourcesBuilder = DefaultClientResources.builder().ioThreadPoolSize(2)
                .computationThreadPoolSize(2);
        if (options.containsKey("reconnectMaxMillis")) {
            resourcesBuilder.reconnectDelay(Delay.exponential(Duration.ofMillis(1),
                    Duration.ofMillis(Long.parseLong(options.get("reconnectMaxMillis"))), 2, TimeUnit.MILLISECONDS));
        }
        ClientResources resources = resourcesBuilder.build();
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
        RedisBulkhead.Builder builder = builder(options, resources);
        builder.maxConcurrency(Integer.parseInt(options.get("limit")))
                .maxQueue(Integer.parseInt(options.get("queue"))).listener(counting);
        if (options.containsKey("leaseMillis")) {
            builder.leaseDuration(Duration.ofMillis(Long.parseLong(options.get("leaseMillis"))))
                    .heartbeatInterval(Duration.ofMillis(Long.parseLong(options.get("heartbeatMillis"))))
                    .pollInterval(Duration.ofMillis(Long.parseLong(options.get("heartbeatMillis"))));
        }
        if (options.containsKey("commandTimeoutMillis")) {
            builder.commandTimeout(Duration.ofMillis(Long.parseLong(options.get("commandTimeoutMillis"))));
        }
        if (options.containsKey("leasedMillis")) {
            builder.leased(Duration.ofMillis(Long.parseLong(options.get("leasedMillis"))));
        }
        RedisBulkhead bulkhead = builder.build();
        System.out.println("READY");
        System.out.flush();

        int threads = Integer.parseInt(options.get("threads"));
        long holdNanos = Long.parseLong(options.get("holdMicros")) * 1_000;
        Path stopFile = Path.of(options.get("stopFile"));
        long stopAt = System.nanoTime() + Duration.ofMillis(Long.parseLong(options.get("maxMillis"))).toNanos();
        AtomicLong completed = new AtomicLong();
        AtomicLong refused = new AtomicLong();
        AtomicLong errors = new AtomicLong();
        AtomicLong lastStarted = new AtomicLong(-1);
        AtomicInteger stop = new AtomicInteger();
        Thread watcher = new Thread(() -> {
            while (stop.get() == 0) {
                if (Files.exists(stopFile) || System.nanoTime() - stopAt > 0) {
                    stop.set(1);
                }
                System.out.println("STATUS completed=" + completed.get() + " lastStarted=" + lastStarted.get());
                System.out.flush();
                LockSupport.parkNanos(100_000_000L);
            }
        }, "stop-watcher");
        watcher.setDaemon(true);
        watcher.start();

        List<StringBuilder> logs = new ArrayList<>();
        List<Thread> workers = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            StringBuilder log = new StringBuilder(1 << 16);
            logs.add(log);
            int thread = t;
            Thread worker = new Thread(() -> {
                long[] times = new long[2];
                for (long seq = 0; stop.get() == 0; seq++) {
                    long asked = nowMicros();
                    times[0] = -1;
                    times[1] = -1;
                    String outcome;
                    try {
                        bulkhead.run(() -> {
                            times[0] = nowMicros();
                            pause(holdNanos);
                            times[1] = nowMicros();
                        });
                        outcome = "OK";
                        completed.incrementAndGet();
                        lastStarted.accumulateAndGet(times[0], Math::max);
                    } catch (BulkheadRejectedException rejected) {
                        outcome = rejected.rejection().reason().name();
                        refused.incrementAndGet();
                    } catch (RuntimeException failed) {
                        outcome = "ERR:" + failed.getClass().getSimpleName();
                        errors.incrementAndGet();
                    }
                    log.append(thread).append(' ').append(seq).append(' ').append(asked).append(' ')
                            .append(times[0]).append(' ').append(times[1]).append(' ').append(outcome).append('\n');
                    if (!"OK".equals(outcome)) {
                        // A refused call returns at once while Redis is down: don't spin the shared CPU.
                        pause(5_000_000L);
                    }
                }
            }, "fleet-worker-" + t);
            worker.start();
            workers.add(worker);
        }
        for (Thread worker : workers) {
            worker.join();
        }
        bulkhead.close();
        StringBuilder all = new StringBuilder();
        logs.forEach(all::append);
        Files.writeString(Path.of(options.get("log")), all, StandardCharsets.US_ASCII);
        long attempts = completed.get() + refused.get() + errors.get();
        System.out.println("DONE attempts=" + attempts + " completed=" + completed + " refused=" + refused
                + " errors=" + errors + " admitted=" + admitted + " released=" + released);
        System.out.flush();
        System.exit(0);
    }

    /** Parks for {@code nanos}, through spurious wake-ups (a stray unpark from a waiter's hand-off, say). */
    private static void pause(long nanos) {
        long until = System.nanoTime() + nanos;
        for (long left = nanos; left > 0; left = until - System.nanoTime()) {
            LockSupport.parkNanos(left);
        }
    }

    private static RedisBulkhead.Builder builder(Map<String, String> options, ClientResources resources) {
        String name = options.get("name");
        String target = options.get("target");
        switch (options.get("mode")) {
            case "standalone" -> {
                RedisClient client = RedisClient.create(resources, RedisURI.create(target));
                client.setOptions(RedisBulkhead.clientOptions());
                return RedisBulkhead.builder(client, name);
            }
            case "sentinel" -> {
                RedisClient client = RedisClient.create(resources, sentinelUri(target));
                client.setOptions(RedisBulkhead.clientOptions());
                return RedisBulkhead.builder(client, name);
            }
            case "cluster" -> {
                List<RedisURI> seeds = new ArrayList<>();
                for (String node : target.split(",")) {
                    seeds.add(RedisURI.create(node));
                }
                RedisClusterClient client = RedisClusterClient.create(resources, seeds);
                client.setOptions(RedisBulkhead.clusterClientOptions());
                return RedisBulkhead.builder(client, name);
            }
            default -> throw new IllegalArgumentException("mode " + options.get("mode"));
        }
    }

    /** {@code master@host:port,host:port}: a Sentinel URI that asks every listed sentinel for the master. */
    public static RedisURI sentinelUri(String target) {
        int at = target.indexOf('@');
        String master = target.substring(0, at);
        RedisURI.Builder uri = null;
        for (String sentinel : target.substring(at + 1).split(",")) {
            int colon = sentinel.lastIndexOf(':');
            String host = sentinel.substring(0, colon);
            int port = Integer.parseInt(sentinel.substring(colon + 1));
            uri = uri == null ? RedisURI.Builder.sentinel(host, port, master) : uri.withSentinel(host, port);
        }
        return uri.withTimeout(Duration.ofSeconds(1)).build();
    }
}
