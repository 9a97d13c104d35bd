package dev.bulwark.benchmarks;

import dev.bulwark.AdaptiveLimit;
import dev.bulwark.Bulkhead;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * {@link AdaptiveBenchmark}'s comparison, made robust to a shared, noisy machine: instead of one JMH trial per
 * configuration (minutes apart, each facing whatever load the machine had then), it times short batches of
 * 20,000 sync calls through a fixed bulkhead and through each adaptive one in turn, round after round (the order
 * rotated every round), and reports the median of the per-round ratios to the fixed bulkhead. A load spike then
 * hits both sides of a ratio alike. Not a JMH benchmark: a check for when JMH's figures are swamped by noise.
 *
 * <p>Run: {@code java -cp bulwark-benchmarks/target/benchmarks.jar dev.bulwark.benchmarks.AdaptiveInterleaved
 * THREADS ROUNDS} (for example {@code 1 200}). With more than one thread, the time per call is wall time divided
 * by all threads' calls.
 */
public final class AdaptiveInterleaved {

    private static final int BATCH = 20_000;
    private static final int WARMUP_ROUNDS = 30;
    private static volatile Object sink;

    private AdaptiveInterleaved() {
    }

    /**
     * Runs the check and prints one line per configuration.
     *
     * @param args the number of calling threads and of measured rounds
     * @throws Exception when a calling thread fails
     */
    public static void main(String[] args) throws Exception {
        int threads = Integer.parseInt(args[0]);
        int rounds = Integer.parseInt(args[1]);
        Map<String, Bulkhead> bulkheads = new LinkedHashMap<>();
        bulkheads.put("fixed", builder().build());
        bulkheads.put("selfTuning", builder().adaptive(AdaptiveLimit.selfTuning().minLimit(16).maxLimit(1024)
                .build()).build());
        bulkheads.put("aimd", builder().adaptive(AdaptiveLimit.aimd().minLimit(16).maxLimit(1024)
                .latencyThreshold(Duration.ofMillis(10)).build()).build());
        bulkheads.put("gradient", builder().adaptive(AdaptiveLimit.gradient().minLimit(16).maxLimit(1024)
                .build()).build());
        ExecutorService callers = Executors.newFixedThreadPool(threads);
        try {
            for (int w = 0; w < WARMUP_ROUNDS; w++) {
                for (Bulkhead bulkhead : bulkheads.values()) {
                    time(bulkhead, threads, callers);
                }
            }
            Map<String, List<Double>> ratios = new LinkedHashMap<>();
            Map<String, List<Double>> nanos = new LinkedHashMap<>();
            for (String name : bulkheads.keySet()) {
                ratios.put(name, new ArrayList<>());
                nanos.put(name, new ArrayList<>());
            }
            for (int r = 0; r < rounds; r++) {
                List<String> order = new ArrayList<>(bulkheads.keySet());
                Collections.rotate(order, r);
                Map<String, Double> perCall = new HashMap<>();
                for (String name : order) {
                    perCall.put(name, time(bulkheads.get(name), threads, callers) / ((double) BATCH * threads));
                }
                for (String name : bulkheads.keySet()) {
                    ratios.get(name).add(perCall.get(name) / perCall.get("fixed"));
                    nanos.get(name).add(perCall.get(name));
                }
            }
            for (String name : bulkheads.keySet()) {
                List<Double> ratio = sorted(ratios.get(name));
                List<Double> perCall = sorted(nanos.get(name));
                System.out.printf(java.util.Locale.ROOT,
                        "threads %d %-10s median %.1f ns/call; median ratio to fixed %.2f (quartiles %.2f to %.2f)%n",
                        threads, name, perCall.get(perCall.size() / 2), ratio.get(ratio.size() / 2),
                        ratio.get(ratio.size() / 4), ratio.get(3 * ratio.size() / 4));
            }
        } finally {
            callers.shutdown();
        }
    }

    private static Bulkhead.Builder builder() {
        return Bulkhead.builder().name("interleaved").maxConcurrency(64).maxQueue(0);
    }

    private static List<Double> sorted(List<Double> values) {
        List<Double> copy = new ArrayList<>(values);
        Collections.sort(copy);
        return copy;
    }

    private static long batch(Bulkhead bulkhead) {
        Object result = new Object();
        long start = System.nanoTime();
        for (int i = 0; i < BATCH; i++) {
            sink = bulkhead.call(() -> result);
        }
        return System.nanoTime() - start;
    }

    private static long time(Bulkhead bulkhead, int threads, ExecutorService callers) throws Exception {
        if (threads == 1) {
            return batch(bulkhead);
        }
        CyclicBarrier start = new CyclicBarrier(threads + 1);
        List<Future<?>> running = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            running.add(callers.submit(() -> {
                start.await();
                return batch(bulkhead);
            }));
        }
        start.await();
        long begin = System.nanoTime();
        for (Future<?> caller : running) {
            caller.get();
        }
        return System.nanoTime() - begin;
    }
}
