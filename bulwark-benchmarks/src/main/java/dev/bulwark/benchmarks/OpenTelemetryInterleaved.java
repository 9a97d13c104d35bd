package dev.bulwark.benchmarks;

import dev.bulwark.Bulkhead;
import dev.bulwark.Priority;
import dev.bulwark.ThrowingSupplier;
import dev.bulwark.internal.stats.SampledListener;
import dev.bulwark.internal.stats.TimingSampler;
import dev.bulwark.micrometer.BulwarkMetrics;
import dev.bulwark.opentelemetry.BulwarkTelemetry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.metrics.DoubleHistogram;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.metrics.SdkMeterProvider;
import io.opentelemetry.sdk.testing.exporter.InMemoryMetricReader;
import java.net.URL;
import java.net.URLClassLoader;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongUnaryOperator;

/**
 * {@link OpenTelemetryBindingBenchmark}'s comparison made robust to a shared, noisy machine: each configuration runs
 * in its <em>own class loader</em> (its own copy of Bulwark, the SDK and Micrometer, so its own JIT profiles and
 * compiled code, as in a JMH fork of its own: no call site turns polymorphic because another configuration ran), and
 * the configurations are timed in short batches of uncontended sync calls, round after round, the order rotated
 * every round. Batches are short (about 0.1 ms), so that on a loaded machine many of them run undisturbed: the low
 * percentiles of the per-batch times are then the configurations' own costs, and their ratios to the bare bulkhead's
 * the figures to read (the medians are printed too). Not a JMH benchmark: a check for when JMH's figures are swamped
 * by noise.
 *
 * <p>Configurations: {@code bare}; {@code sampled} (an empty listener taking part in timing sampling);
 * {@code adder} (a sampled listener that counts admissions in a {@link LongAdder}, the binding's per-call work);
 * {@code adderHistogram} (the same, recording the timed leases into an SDK histogram: the binding's work with none of
 * its code); {@code micrometer} ({@link BulwarkMetrics}, {@link SimpleMeterRegistry}); {@code opentelemetry}
 * ({@link BulwarkTelemetry} bound to an SDK with an in-memory reader).
 *
 * <p>Run: {@code java -cp bulwark-benchmarks/target/benchmarks.jar dev.bulwark.benchmarks.OpenTelemetryInterleaved
 * ROUNDS [CONFIGURATION...]} (for example {@code 20000}).
 */
public final class OpenTelemetryInterleaved {

    private static final List<String> CONFIGURATIONS =
            List.of("bare", "sampled", "adder", "adderHistogram", "micrometer", "opentelemetry");
    /** Short enough (about 0.1 ms) that many batches run without being descheduled on a loaded machine. */
    private static final int BATCH = 2_000;
    private static final int WARMUP_ROUNDS = 3_000;

    private OpenTelemetryInterleaved() {
    }

    /**
     * Runs the check and prints one line per configuration.
     *
     * @param args the number of measured rounds, then optionally the configurations (all by default; {@code bare}
     *     is always included)
     * @throws Exception when a configuration cannot be loaded
     */
    public static void main(String[] args) throws Exception {
        int rounds = Integer.parseInt(args[0]);
        List<String> names = new ArrayList<>(List.of("bare"));
        for (String name : args.length > 1 ? Arrays.asList(args).subList(1, args.length) : CONFIGURATIONS) {
            if (!CONFIGURATIONS.contains(name)) {
                throw new IllegalArgumentException("configuration must be one of " + CONFIGURATIONS + " but was "
                        + name);
            }
            if (!names.contains(name)) {
                names.add(name);
            }
        }
        URL jar = OpenTelemetryInterleaved.class.getProtectionDomain().getCodeSource().getLocation();
        Map<String, LongUnaryOperator> subjects = new LinkedHashMap<>();
        for (String name : names) {
            ClassLoader isolated = new URLClassLoader("interleaved-" + name, new URL[] {jar},
                    ClassLoader.getPlatformClassLoader());
            Class<?> subject = Class.forName(Subject.class.getName(), true, isolated);
            // Service look-ups (OpenTelemetry's context storage) go through the context class loader: the isolated
            // one, or they would find the application loader's providers, not subtypes of this loader's interfaces.
            Thread.currentThread().setContextClassLoader(isolated);
            subjects.put(name, (LongUnaryOperator) subject.getMethod("create", String.class).invoke(null, name));
            Thread.currentThread().setContextClassLoader(OpenTelemetryInterleaved.class.getClassLoader());
        }
        for (int w = 0; w < WARMUP_ROUNDS; w++) {
            for (LongUnaryOperator subject : subjects.values()) {
                subject.applyAsLong(BATCH);
            }
        }
        Map<String, List<Double>> ratios = new LinkedHashMap<>();
        Map<String, List<Double>> nanos = new LinkedHashMap<>();
        for (String name : names) {
            ratios.put(name, new ArrayList<>());
            nanos.put(name, new ArrayList<>());
        }
        for (int r = 0; r < rounds; r++) {
            List<String> order = new ArrayList<>(names);
            Collections.rotate(order, r);
            Map<String, Double> perCall = new LinkedHashMap<>();
            for (String name : order) {
                perCall.put(name, subjects.get(name).applyAsLong(BATCH) / (double) BATCH);
            }
            for (String name : names) {
                ratios.get(name).add(perCall.get(name) / perCall.get("bare"));
                nanos.get(name).add(perCall.get(name));
            }
        }
        for (String name : names) {
            List<Double> ratio = sorted(ratios.get(name));
            List<Double> perCall = sorted(nanos.get(name));
            List<Double> bare = sorted(nanos.get("bare"));
            System.out.printf(Locale.ROOT,
                    "%-15s 5th percentile %6.1f ns/call (ratio to bare's %.3f), median %6.1f ns/call (ratio %.3f); "
                            + "median per-round ratio %.3f%n", name, percentile(perCall, 0.05),
                    percentile(perCall, 0.05) / percentile(bare, 0.05), percentile(perCall, 0.5),
                    percentile(perCall, 0.5) / percentile(bare, 0.5), percentile(ratio, 0.5));
        }
    }

    private static double percentile(List<Double> sorted, double phi) {
        return sorted.get((int) (phi * (sorted.size() - 1)));
    }

    private static List<Double> sorted(List<Double> values) {
        List<Double> copy = new ArrayList<>(values);
        Collections.sort(copy);
        return copy;
    }

    /**
     * One configuration, loaded in its own class loader: {@link #applyAsLong} makes that many calls and returns the
     * nanoseconds they took.
     */
    public static final class Subject implements LongUnaryOperator {

        private static final ThrowingSupplier<Object, RuntimeException> WORK = () -> Boolean.TRUE;

        private final Bulkhead bulkhead;
        /** Keeps the calls' results observable so that nothing is folded away. */
        private int seen;

        private Subject(Bulkhead bulkhead) {
            this.bulkhead = bulkhead;
        }

        /**
         * Builds the configuration.
         *
         * @param configuration its name
         * @return the subject
         */
        public static LongUnaryOperator create(String configuration) {
            Bulkhead.Builder builder = Bulkhead.builder().name("interleaved").maxConcurrency(10);
            Bulkhead bulkhead;
            switch (configuration) {
                case "bare":
                    bulkhead = builder.build();
                    break;
                case "sampled":
                    bulkhead = builder.listener(new CountingListener(null, null)).build();
                    break;
                case "adder":
                    bulkhead = builder.listener(new CountingListener(new LongAdder(), null)).build();
                    break;
                case "adderHistogram":
                    DoubleHistogram histogram = sdk().getMeterProvider().get("interleaved")
                            .histogramBuilder("lease").build();
                    bulkhead = builder.listener(new CountingListener(new LongAdder(), histogram)).build();
                    break;
                case "micrometer":
                    bulkhead = builder.build();
                    BulwarkMetrics.of(new SimpleMeterRegistry()).bind(bulkhead);
                    break;
                case "opentelemetry":
                    bulkhead = builder.build();
                    BulwarkTelemetry.create(sdk()).bind(bulkhead);
                    break;
                default:
                    throw new IllegalArgumentException("unknown configuration " + configuration);
            }
            // Initialises OpenTelemetry's context storage now, while the isolated loader is the context loader.
            io.opentelemetry.context.Context.current();
            return new Subject(bulkhead);
        }

        private static OpenTelemetrySdk sdk() {
            return OpenTelemetrySdk.builder().setMeterProvider(SdkMeterProvider.builder()
                    .registerMetricReader(InMemoryMetricReader.create()).build()).build();
        }

        @Override
        public long applyAsLong(long calls) {
            Bulkhead target = bulkhead;
            int hashes = 0;
            long start = System.nanoTime();
            for (long i = 0; i < calls; i++) {
                hashes += target.call(WORK).hashCode();
            }
            long elapsed = System.nanoTime() - start;
            seen += hashes;
            return elapsed;
        }
    }

    /** A sampled listener that counts admissions (when given an adder) and records timed leases (given a histogram). */
    private static final class CountingListener implements SampledListener {
        private final TimingSampler sampler = TimingSampler.adaptive();
        private final LongAdder admitted;
        private final DoubleHistogram leases;
        private final Attributes attributes = Attributes.empty();

        CountingListener(LongAdder admitted, DoubleHistogram leases) {
            this.admitted = admitted;
            this.leases = leases;
        }

        @Override
        public void admitted(long waitedNanos, Priority priority) {
            if (admitted != null) {
                admitted.increment();
            }
        }

        @Override
        public TimingSampler sampler() {
            return sampler;
        }

        @Override
        public void releasesSampled() {
        }

        @Override
        public void released(long executionNanos, long endedAt) {
            if (executionNanos != UNTIMED) {
                if (leases != null) {
                    leases.record(executionNanos / 1e9, attributes);
                }
                sampler.timed(endedAt);
            }
        }
    }
}
