package dev.bulwark.benchmarks;

import dev.bulwark.Bulkhead;
import dev.bulwark.BulkheadListener;
import dev.bulwark.benchmarks.subjects.ProductionStacks;
import dev.bulwark.benchmarks.subjects.ProductionStacks.Kind;
import dev.bulwark.benchmarks.subjects.Subjects;
import dev.bulwark.benchmarks.subjects.Work;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.DoubleAdder;

/**
 * {@link ProductionStackBenchmark}'s bulkhead and metrics rows (issue 20's Metrics goal), made robust to a shared,
 * noisy machine the way {@link AdaptiveInterleaved} is: short batches of 20,000 one-thread sync calls through each
 * stack in turn, round after round (the order rotated every round), reporting each stack's median time per call and
 * the medians of its per-round ratios to Bulwark's bare bulkhead and to Resilience4j's bulkhead with its Micrometer
 * metrics bound. A load spike then hits both sides of a ratio alike. The stacks are {@link ProductionStacks}' (so
 * exactly what the JMH rows measure), plus a raw {@link Semaphore} as the floor and, to attribute the binding's cost,
 * a bulkhead with a listener that overrides nothing and one whose {@code admitted} only adds to a {@link DoubleAdder}
 * (what a registry's counter does). All run in one JVM, so shared code
 * (Bulwark's call path serving the bare and the bound bulkhead) is compiled for both: a cross-check of the JMH rows,
 * not a replacement.
 *
 * <p>Run: {@code java -cp bulwark-benchmarks/target/benchmarks.jar dev.bulwark.benchmarks.MetricsInterleaved ROUNDS}
 * (for example {@code 300}).
 */
public final class MetricsInterleaved {

    private static final int BATCH = 20_000;
    private static final int WARMUP_ROUNDS = 400;
    private static volatile Object sink;

    private MetricsInterleaved() {
    }

    /**
     * Runs the comparison and prints one line per stack.
     *
     * @param args the number of measured rounds
     */
    public static void main(String[] args) {
        int rounds = Integer.parseInt(args[0]);
        Map<String, ProductionStacks.Stack> stacks = new LinkedHashMap<>();
        Semaphore semaphore = new Semaphore(10);
        stacks.put("semaphore", work -> {
            if (!semaphore.tryAcquire()) {
                return semaphore;
            }
            try {
                return work.get();
            } finally {
                semaphore.release();
            }
        });
        stacks.put("r4j-bulkhead", ProductionStacks.create(Subjects.RESILIENCE4J, Kind.BULKHEAD, false));
        stacks.put("r4j-metrics", ProductionStacks.create(Subjects.RESILIENCE4J, Kind.METRICS, false));
        stacks.put("bulwark-bulkhead", ProductionStacks.create(Subjects.BULWARK, Kind.BULKHEAD, false));
        stacks.put("bulwark-metrics", ProductionStacks.create(Subjects.BULWARK, Kind.METRICS, false));
        // Attribution: what a listener that overrides nothing costs, and one that only adds to an adder per call.
        stacks.put("bulwark-empty-listener", listened(new BulkheadListener() { }));
        DoubleAdder admissions = new DoubleAdder();
        stacks.put("bulwark-adder-listener", listened(new BulkheadListener() {
            @Override
            public void admitted(long waitedNanos) {
                admissions.add(1.0);
            }
        }));
        Work work = Work.returningResult();
        for (int w = 0; w < WARMUP_ROUNDS; w++) {
            for (ProductionStacks.Stack stack : stacks.values()) {
                batch(stack, work);
            }
        }
        Map<String, List<Double>> toBare = new LinkedHashMap<>();
        Map<String, List<Double>> toPeer = new LinkedHashMap<>();
        Map<String, List<Double>> nanos = new LinkedHashMap<>();
        for (String name : stacks.keySet()) {
            toBare.put(name, new ArrayList<>());
            toPeer.put(name, new ArrayList<>());
            nanos.put(name, new ArrayList<>());
        }
        for (int r = 0; r < rounds; r++) {
            List<String> order = new ArrayList<>(stacks.keySet());
            Collections.rotate(order, r);
            Map<String, Double> perCall = new HashMap<>();
            for (String name : order) {
                perCall.put(name, batch(stacks.get(name), work) / (double) BATCH);
            }
            for (String name : stacks.keySet()) {
                toBare.get(name).add(perCall.get(name) / perCall.get("bulwark-bulkhead"));
                toPeer.get(name).add(perCall.get(name) / perCall.get("r4j-metrics"));
                nanos.get(name).add(perCall.get(name));
            }
        }
        for (String name : stacks.keySet()) {
            List<Double> bare = sorted(toBare.get(name));
            List<Double> peer = sorted(toPeer.get(name));
            List<Double> perCall = sorted(nanos.get(name));
            System.out.printf(Locale.ROOT,
                    "%-22s median %5.1f ns/call; to bulwark bare %.2f (quartiles %.2f-%.2f); "
                            + "to r4j+metrics %.2f (quartiles %.2f-%.2f)%n",
                    name, median(perCall), median(bare), bare.get(bare.size() / 4), bare.get(3 * bare.size() / 4),
                    median(peer), peer.get(peer.size() / 4), peer.get(3 * peer.size() / 4));
        }
    }

    private static ProductionStacks.Stack listened(BulkheadListener listener) {
        Bulkhead bulkhead = Bulkhead.builder().name("attribution").maxConcurrency(10).maxQueue(0).listener(listener)
                .build();
        return work -> bulkhead.call(work);
    }

    private static double median(List<Double> sorted) {
        return sorted.get(sorted.size() / 2);
    }

    private static List<Double> sorted(List<Double> values) {
        List<Double> copy = new ArrayList<>(values);
        Collections.sort(copy);
        return copy;
    }

    private static long batch(ProductionStacks.Stack stack, Work work) {
        long start = System.nanoTime();
        for (int i = 0; i < BATCH; i++) {
            sink = stack.call(work);
        }
        return System.nanoTime() - start;
    }
}
