package dev.bulwark;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bulwark.testing.FakeTicker;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/**
 * Issue 15 item 4: the self-tuning limit in a per-key bulkhead. Two tenants share nothing but the bulkhead: one
 * downstream of capacity 20, one of capacity 5 (processor sharing that slows with the square of its overload,
 * exponential service of mean 10 ms), each driven by a closed loop of three times its capacity through a queue, in
 * fake time (a discrete-event loop: each call ends at its own time). Each partition's limit settles near its own
 * key's capacity, with no setting at all.
 */
class PartitionedSelfTuningLimitTest {

    private static final long BASE_NANOS = 10_000_000L;

    private final FakeTicker ticker = new FakeTicker();
    private final SplittableRandom random = new SplittableRandom(42);
    private final PriorityQueue<Completion> completions = new PriorityQueue<>();
    private final Map<String, Integer> inFlight = new HashMap<>();
    private final ArrayDeque<String> toIssue = new ArrayDeque<>();
    private long sequence;

    private record Completion(long at, long sequence, String key, CompletableFuture<String> operation)
            implements Comparable<Completion> {
        @Override
        public int compareTo(Completion other) {
            int byTime = Long.compare(at, other.at);
            return byTime != 0 ? byTime : Long.compare(sequence, other.sequence);
        }
    }

    private static int capacityOf(String key) {
        return key.equals("large") ? 20 : 5;
    }

    private void issue(PartitionedBulkhead<String> bulkhead, String key) {
        bulkhead.callAsync(key, () -> {
            int now = inFlight.merge(key, 1, Integer::sum);
            double overload = Math.max(1.0, (double) now / capacityOf(key));
            long latency = (long) (BASE_NANOS * -Math.log(1.0 - random.nextDouble()) * overload * overload);
            CompletableFuture<String> operation = new CompletableFuture<>();
            completions.add(new Completion(ticker.read() + Math.max(1L, latency), sequence++, key, operation));
            return operation;
        }).whenComplete((result, failure) -> toIssue.add(key));
    }

    @Test
    void eachPartitionFindsItsOwnKeysCapacity() {
        BulkheadConfig perKey = Bulkhead.builder().maxConcurrency(10).maxQueue(100).ticker(ticker)
                .adaptive(AdaptiveLimit.selfTuning().maxLimit(200).build()).config();
        PartitionedBulkhead<String> bulkhead = PartitionedBulkhead.<String>builder().name("tenants")
                .defaultConfig(perKey).ticker(ticker).build();
        for (String key : List.of("large", "small")) {
            for (int i = 0; i < 3 * capacityOf(key); i++) {
                issue(bulkhead, key);
            }
        }
        Map<String, List<Integer>> settled = Map.of("large", new ArrayList<>(), "small", new ArrayList<>());
        long end = ticker.read() + Duration.ofSeconds(240).toNanos();
        long settledFrom = ticker.read() + Duration.ofSeconds(120).toNanos();
        long nextLook = settledFrom;

        while (ticker.read() < end) {
            Completion next = completions.poll();
            assertThat(next).as("the closed loop keeps calls running").isNotNull();
            ticker.advance(Duration.ofNanos(next.at() - ticker.read()));
            inFlight.merge(next.key(), -1, Integer::sum);
            next.operation().complete("done");
            while (!toIssue.isEmpty()) {
                issue(bulkhead, toIssue.poll());
            }
            if (ticker.read() >= nextLook) {
                nextLook += Duration.ofMillis(100).toNanos();
                for (String key : settled.keySet()) {
                    int limit = bulkhead.partition(key).orElseThrow().maxConcurrency();
                    assertThat(limit).isBetween(1, 200);
                    settled.get(key).add(limit);
                }
            }
        }

        for (Map.Entry<String, List<Integer>> key : settled.entrySet()) {
            List<Integer> limits = new ArrayList<>(key.getValue());
            Collections.sort(limits);
            int capacity = capacityOf(key.getKey());
            assertThat(limits.get(limits.size() / 2)).as("median limit of %s (capacity %d)", key.getKey(), capacity)
                    .isBetween(capacity - Math.max(2, capacity / 4), capacity + Math.max(2, capacity / 4));
        }
    }
}
