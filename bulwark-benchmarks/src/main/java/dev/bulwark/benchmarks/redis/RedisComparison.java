package dev.bulwark.benchmarks.redis;

import dev.bulwark.benchmarks.redis.Contender.Kind;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

/**
 * {@code RedisBulkhead} side by side with Redisson's {@code RSemaphore} and {@code RPermitExpirableSemaphore} on
 * the same {@code redis-server}, with a bare {@code PING} as the yardstick and a bare {@code EVALSHA} of
 * {@code return 1} as the floor of anything that runs a script (atomic check-and-take needs one). A plain main
 * method rather than JMH:
 * what is measured is round trips to another process, per call and per client count, plus Redis' own command
 * counters, a fairness run and a kill -9, none of which fits a JMH method.
 *
 * <p>Design notes. Each measurement opens a fresh contender (its own client and connections, a fresh key) that the
 * {@code clients} threads share, as the threads of one service instance share one client; the limit (64 permits)
 * is never reached, so this is the uncontended cost. Threads call in a loop; after a warm-up the main thread reads
 * {@code INFO commandstats}, lets them record each call's latency for the measuring time, reads the counters again
 * and divides the difference by the calls recorded (background commands, such as Bulwark's heartbeat, are counted:
 * they are part of the cost). Rounds rotate through the contenders so that a noisy phase of a shared machine does not
 * fall on one contender only; each figure is the median over rounds.
 * <ul>
 *   <li><b>Fairness</b>: one permit, 8 threads that acquire, hold 1 ms and release in a loop. Taking the grants in
 *       the order they happened, a grant's <i>lag</i> is how much earlier it asked than the latest-asking call
 *       granted before it: 0 for strict arrival order. Reported: the share of grants out of order by more than
 *       1 ms, the largest lag, the 99th percentile and largest wait, and the fewest and most grants of one thread.</li>
 *   <li><b>Recovery after kill -9</b>: a second JVM takes the only permit and is killed with SIGKILL; the time
 *       until this JVM can take the permit (polled every 50 ms, for at most 25 s). Bulwark's lease and Redisson's
 *       expirable lease are both 10 s; {@code RSemaphore} has none.</li>
 * </ul>
 *
 * <p>Run (after {@code ./mvnw -B -q -pl bulwark-benchmarks -am package -DskipTests}):
 * <pre>
 * java -cp bulwark-benchmarks/target/benchmarks.jar dev.bulwark.benchmarks.redis.RedisComparison \
 *     [seconds=3] [warmup=1] [rounds=3] [clients=1,4,16] [redis=redis://host:port]
 * </pre>
 * Without {@code redis=} it starts {@code redis-server} from the PATH on a free loopback port.
 */
public final class RedisComparison {

    private static final int PERMITS = 64;
    private static final long ONE_MS = 1_000_000L;

    private RedisComparison() {
    }

    /** One (contender, client count) measurement. */
    record Latency(double medianMicros, double p99Micros, double callsPerSecond, double roundTripsPerCall,
            double innerCommandsPerCall, double serverMicrosPerCall, Map<String, Double> commandsPerCall) {
    }

    /** Commands a client sends; every other command in the counters ran inside a script. */
    private static final java.util.Set<String> TOP_LEVEL = java.util.Set.of("evalsha", "eval", "ping", "script");

    public static void main(String[] args) throws Exception {
        if (args.length > 0 && args[0].equals("hold")) {
            hold(Kind.valueOf(args[1]), args[2], args[3]);
            return;
        }
        Map<String, String> options = new HashMap<>(Map.of("seconds", "3", "warmup", "1", "rounds", "3",
                "clients", "1,4,16"));
        for (String arg : args) {
            options.put(arg.substring(0, arg.indexOf('=')), arg.substring(arg.indexOf('=') + 1));
        }
        long measureNanos = TimeUnit.SECONDS.toNanos(Long.parseLong(options.get("seconds")));
        long warmupNanos = TimeUnit.SECONDS.toNanos(Long.parseLong(options.get("warmup")));
        int rounds = Integer.parseInt(options.get("rounds"));
        int[] clientCounts = Arrays.stream(options.get("clients").split(",")).mapToInt(Integer::parseInt).toArray();
        try (LocalRedis redis = options.containsKey("redis") ? LocalRedis.existing(options.get("redis"))
                : LocalRedis.start()) {
            System.out.printf("Redis %s, JDK %s, load average %s%n", redis.commands().info("server").lines()
                    .filter(l -> l.startsWith("redis_version:")).findFirst().orElse("?"),
                    Runtime.version(), loadAverage());
            Map<Kind, Map<Integer, List<Latency>>> results = new EnumMap<>(Kind.class);
            for (int round = 0; round < rounds; round++) {
                for (int clients : clientCounts) {
                    List<Kind> order = new ArrayList<>(List.of(Kind.values()));
                    java.util.Collections.rotate(order, round);
                    for (Kind kind : order) {
                        Latency latency = latency(redis, kind, clients, round, warmupNanos, measureNanos);
                        results.computeIfAbsent(kind, k -> new HashMap<>())
                                .computeIfAbsent(clients, c -> new ArrayList<>()).add(latency);
                        System.out.printf(Locale.ROOT, "  round %d, %2d clients, %-50s median %7.1f µs, p99 %8.1f "
                                        + "µs, %8.0f calls/s, server %.1f µs/call, commands/call %s%n",
                                round + 1, clients, kind.label, latency.medianMicros(), latency.p99Micros(),
                                latency.callsPerSecond(), latency.serverMicrosPerCall(), latency.commandsPerCall());
                    }
                }
            }
            printLatencyTable(results, clientCounts);
            System.out.println();
            System.out.println("| Contender (1 permit, 8 threads, hold 1 ms) | grants | out of order > 1 ms | "
                    + "largest lag | wait p99 | wait max | grants per thread (fewest–most) |");
            System.out.println("|---|---:|---:|---:|---:|---:|---:|");
            for (Kind kind : Kind.values()) {
                if (kind.isLimiter()) {
                    System.out.println(fairness(redis, kind, measureNanos));
                }
            }
            System.out.println();
            System.out.println("| Contender (1 permit, holder killed with SIGKILL) | permit free again after |");
            System.out.println("|---|---:|");
            for (Kind kind : List.of(Kind.BULWARK, Kind.REDISSON_SEMAPHORE, Kind.REDISSON_EXPIRABLE)) {
                System.out.printf("| %s | %s |%n", kind.label, recovery(redis, kind));
            }
        }
        System.exit(0);
    }

    private static Latency latency(LocalRedis redis, Kind kind, int clients, int round, long warmupNanos,
            long measureNanos) throws InterruptedException {
        String name = "comparison-" + kind.name().toLowerCase(Locale.ROOT) + "-" + clients + "-" + round;
        try (Contender contender = Contender.open(kind, redis.uri(), name, PERMITS)) {
            AtomicInteger phase = new AtomicInteger(); // 0 warm-up, 1 measure, 2 stop
            long[][] samples = new long[clients][];
            int[] counts = new int[clients];
            List<Thread> threads = new ArrayList<>();
            for (int c = 0; c < clients; c++) {
                int client = c;
                samples[c] = new long[1 << 20];
                Thread thread = new Thread(() -> {
                    Runnable noop = () -> { };
                    try {
                        for (int p; (p = phase.get()) < 2; ) {
                            long start = System.nanoTime();
                            contender.call(noop);
                            long took = System.nanoTime() - start;
                            if (p == 1 && phase.get() == 1 && counts[client] < samples[client].length) {
                                samples[client][counts[client]++] = took;
                            }
                        }
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }, "client-" + c);
                thread.start();
                threads.add(thread);
            }
            LockSupport.parkNanos(warmupNanos);
            Map<String, long[]> before = redis.commandStats();
            phase.set(1);
            long started = System.nanoTime();
            LockSupport.parkNanos(measureNanos);
            phase.set(2);
            long elapsed = System.nanoTime() - started;
            for (Thread thread : threads) {
                thread.join();
            }
            Map<String, long[]> after = redis.commandStats();
            long[] all = new long[Arrays.stream(counts).sum()];
            int at = 0;
            for (int c = 0; c < clients; c++) {
                System.arraycopy(samples[c], 0, all, at, counts[c]);
                at += counts[c];
            }
            Arrays.sort(all);
            Map<String, Double> perCall = new java.util.TreeMap<>();
            double[] topLevel = new double[3]; // round trips, inner commands, server µs of the round trips
            after.forEach((command, stats) -> {
                long[] was = before.getOrDefault(command, new long[2]);
                long calls = stats[0] - was[0];
                if (calls > 0) {
                    perCall.put(command, Math.round(100.0 * calls / all.length) / 100.0);
                    if (TOP_LEVEL.contains(command)) {
                        topLevel[0] += (double) calls / all.length;
                        topLevel[2] += (double) (stats[1] - was[1]) / all.length;
                    } else {
                        topLevel[1] += (double) calls / all.length;
                    }
                }
            });
            return new Latency(quantile(all, 0.5) / 1000.0, quantile(all, 0.99) / 1000.0,
                    all.length * 1e9 / elapsed, topLevel[0], topLevel[1], topLevel[2], perCall);
        }
    }

    private static void printLatencyTable(Map<Kind, Map<Integer, List<Latency>>> results, int[] clientCounts) {
        System.out.println();
        StringBuilder header = new StringBuilder("| Contender |");
        StringBuilder rule = new StringBuilder("|---|");
        for (int clients : clientCounts) {
            header.append(' ').append(clients).append(clients == 1 ? " client" : " clients")
                    .append(": median / p99 (µs) |");
            rule.append("---:|");
        }
        header.append(" round trips per call | commands inside scripts per call | Redis server µs per call |");
        rule.append("---:|---:|---:|");
        System.out.println(header);
        System.out.println(rule);
        for (Kind kind : Kind.values()) {
            StringBuilder row = new StringBuilder("| ").append(kind.label).append(" |");
            for (int clients : clientCounts) {
                List<Latency> rounds = results.get(kind).get(clients);
                row.append(String.format(Locale.ROOT, " %.0f / %.0f |",
                        median(rounds.stream().mapToDouble(Latency::medianMicros).toArray()),
                        median(rounds.stream().mapToDouble(Latency::p99Micros).toArray())));
            }
            List<Latency> first = results.get(kind).get(clientCounts[0]);
            row.append(String.format(Locale.ROOT, " %.2f | %.1f | %.1f |",
                    median(first.stream().mapToDouble(Latency::roundTripsPerCall).toArray()),
                    median(first.stream().mapToDouble(Latency::innerCommandsPerCall).toArray()),
                    median(first.stream().mapToDouble(Latency::serverMicrosPerCall).toArray())));
            System.out.println(row);
        }
        double ping = median(results.get(Kind.PING).get(clientCounts[0]).stream()
                .mapToDouble(Latency::medianMicros).toArray());
        double bulwark = median(results.get(Kind.BULWARK).get(clientCounts[0]).stream()
                .mapToDouble(Latency::medianMicros).toArray());
        double floor = median(results.get(Kind.TRIVIAL_SCRIPT).get(clientCounts[0]).stream()
                .mapToDouble(Latency::medianMicros).toArray());
        System.out.printf(Locale.ROOT, "%nBulwark / PING at %d client(s), median: %.2f× (goal ≤ 1.5×); "
                + "'return 1' / PING: %.2f×%n", clientCounts[0], bulwark / ping, floor / ping);
        for (int clients : clientCounts) {
            double ours = median(results.get(Kind.BULWARK).get(clients).stream().mapToDouble(Latency::medianMicros)
                    .toArray());
            double best = Double.MAX_VALUE;
            for (Kind kind : Kind.values()) {
                if (kind.isLimiter() && kind != Kind.BULWARK) {
                    best = Math.min(best, median(results.get(kind).get(clients).stream()
                            .mapToDouble(Latency::medianMicros).toArray()));
                }
            }
            System.out.printf(Locale.ROOT,
                    "Bulwark / fastest Redisson at %d client(s), median: %.2f× (goal ≤ 1×)%n", clients, ours / best);
        }
    }

    private static String fairness(LocalRedis redis, Kind kind, long measureNanos) throws InterruptedException {
        int threads = 8;
        String name = "fairness-" + kind.name().toLowerCase(Locale.ROOT);
        try (Contender contender = Contender.open(kind, redis.uri(), name, 1)) {
            AtomicInteger stop = new AtomicInteger();
            List<long[]> grants = java.util.Collections.synchronizedList(new ArrayList<>());
            int[] perThread = new int[threads];
            List<Thread> workers = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int thread = t;
                Thread worker = new Thread(() -> {
                    try {
                        while (stop.get() == 0) {
                            long asked = System.nanoTime();
                            long[] granted = new long[1];
                            contender.call(() -> {
                                granted[0] = System.nanoTime();
                                long until = granted[0] + ONE_MS;
                                for (long left = ONE_MS; left > 0; left = until - System.nanoTime()) {
                                    LockSupport.parkNanos(left);
                                }
                            });
                            grants.add(new long[] {asked, granted[0]});
                            perThread[thread]++;
                        }
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }, "fair-" + t);
                worker.start();
                workers.add(worker);
            }
            LockSupport.parkNanos(measureNanos);
            stop.set(1);
            for (Thread worker : workers) {
                worker.join();
            }
            List<long[]> inOrder = new ArrayList<>(grants);
            inOrder.sort(java.util.Comparator.comparingLong(g -> g[1]));
            long latestAsked = Long.MIN_VALUE;
            long largestLag = 0;
            int outOfOrder = 0;
            long[] waits = new long[inOrder.size()];
            for (int i = 0; i < inOrder.size(); i++) {
                long[] grant = inOrder.get(i);
                long lag = i == 0 ? 0 : Math.max(0, latestAsked - grant[0]);
                largestLag = Math.max(largestLag, lag);
                outOfOrder += lag > ONE_MS ? 1 : 0;
                latestAsked = Math.max(latestAsked, grant[0]);
                waits[i] = grant[1] - grant[0];
            }
            Arrays.sort(waits);
            int fewest = Arrays.stream(perThread).min().orElse(0);
            int most = Arrays.stream(perThread).max().orElse(0);
            return String.format(Locale.ROOT, "| %s | %d | %.1f %% | %.1f ms | %.1f ms | %.1f ms | %d–%d |",
                    kind.label, inOrder.size(), 100.0 * outOfOrder / Math.max(1, inOrder.size()),
                    largestLag / 1e6, quantile(waits, 0.99) / 1e6, quantile(waits, 1.0) / 1e6, fewest, most);
        }
    }

    private static String recovery(LocalRedis redis, Kind kind) throws IOException, InterruptedException {
        String name = "recovery-" + kind.name().toLowerCase(Locale.ROOT);
        String java = ProcessHandle.current().info().command().orElse("java");
        Process holder = new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"),
                RedisComparison.class.getName(), "hold", kind.name(), redis.uri(), name).redirectErrorStream(true)
                .start();
        try (BufferedReader out = new BufferedReader(new InputStreamReader(holder.getInputStream(),
                StandardCharsets.UTF_8))) {
            for (String line; (line = out.readLine()) != null && !line.startsWith("HELD"); ) {
                // Skip the holder's log lines.
            }
            try (Contender contender = Contender.open(kind, redis.uri(), name, 1)) {
                if (contender.tryOnce()) {
                    return "(the holder held nothing)";
                }
                holder.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
                long killedAt = System.nanoTime();
                long deadline = killedAt + TimeUnit.SECONDS.toNanos(25);
                while (System.nanoTime() - deadline < 0) {
                    if (contender.tryOnce()) {
                        return String.format(Locale.ROOT, "%.1f s", (System.nanoTime() - killedAt) / 1e9);
                    }
                    LockSupport.parkNanos(50 * ONE_MS);
                }
                return "never (not within 25 s: the permit is lost for good)";
            }
        } finally {
            holder.destroyForcibly();
        }
    }

    /** The second JVM of the recovery run: takes the only permit, says so, keeps it until killed. */
    private static void hold(Kind kind, String uri, String name) throws InterruptedException {
        Contender contender = Contender.open(kind, uri, name, 1);
        contender.acquireAndKeep();
        System.out.println("HELD");
        System.out.flush();
        Thread.sleep(Long.MAX_VALUE);
    }

    private static long quantile(long[] sorted, double q) {
        return sorted.length == 0 ? 0 : sorted[(int) Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
    }

    private static double median(double[] values) {
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        return sorted.length == 0 ? Double.NaN : sorted[sorted.length / 2];
    }

    private static String loadAverage() {
        try {
            return Files.readString(Path.of("/proc/loadavg")).trim();
        } catch (IOException e) {
            return "?";
        }
    }
}
