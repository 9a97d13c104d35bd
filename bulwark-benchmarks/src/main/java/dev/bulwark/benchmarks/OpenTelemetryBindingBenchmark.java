package dev.bulwark.benchmarks;

import dev.bulwark.Bulkhead;
import dev.bulwark.BulkheadListener;
import dev.bulwark.ThrowingSupplier;
import dev.bulwark.internal.stats.SampledListener;
import dev.bulwark.internal.stats.TimingSampler;
import dev.bulwark.micrometer.BulwarkMetrics;
import dev.bulwark.opentelemetry.BulwarkTelemetry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.metrics.SdkMeterProvider;
import io.opentelemetry.sdk.testing.exporter.InMemoryMetricReader;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;

/**
 * What binding a bulkhead to OpenTelemetry costs per call: the same uncontended sync and async calls through a bare
 * bulkhead, one with an empty listener (the floor of any metrics integration: the bulkhead's own clock reads and
 * event fan-out), and one bound with {@link BulwarkTelemetry} to a real SDK meter provider with a reader attached
 * (so the SDK really aggregates; nothing is collected during the measurement), beside the Micrometer binding.
 *
 * <p>Run: {@code java -jar bulwark-benchmarks/target/benchmarks.jar OpenTelemetryBindingBenchmark -f 1 -wi 3 -i 5
 * -prof gc}.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 3, jvmArgsAppend = {"-Xms2g", "-Xmx2g", "-Xmn128m"})
@Threads(1)
@State(Scope.Benchmark)
public class OpenTelemetryBindingBenchmark {

    /**
     * {@code bare}: no listener; {@code listener}: an empty listener; {@code sampled}: an empty listener that takes
     * part in timing sampling as the bindings do (what any sampled binding pays before it records anything);
     * {@code micrometer}: bound with {@link BulwarkMetrics} to a {@link SimpleMeterRegistry} (the Micrometer
     * binding's figure, in the same run); {@code prometheus}: bound with {@link BulwarkMetrics} to a
     * {@link PrometheusMeterRegistry}, everything on (its histograms included); {@code prometheus-no-histograms}: the
     * same with {@code histograms(false)}; {@code opentelemetry}: bound to the SDK.
     */
    @Param({"bare", "listener", "sampled", "micrometer", "prometheus", "prometheus-no-histograms", "opentelemetry"})
    public String binding;

    private static final ThrowingSupplier<Object, RuntimeException> WORK = () -> Boolean.TRUE;
    private static final CompletableFuture<Object> DONE = CompletableFuture.completedFuture(Boolean.TRUE);
    private static final Supplier<CompletableFuture<Object>> ASYNC_WORK = () -> DONE;

    private Bulkhead bulkhead;
    private SdkMeterProvider meterProvider;

    /** Builds the bulkhead and, for {@code opentelemetry}, the SDK and the binding. */
    @Setup(Level.Trial)
    public void setUp() {
        Bulkhead.Builder builder = Bulkhead.builder().name("benchmark").maxConcurrency(10);
        switch (binding) {
            case "bare":
                bulkhead = builder.build();
                break;
            case "listener":
                bulkhead = builder.listener(new BulkheadListener() { }).build();
                break;
            case "sampled":
                bulkhead = builder.listener(new EmptySampledListener()).build();
                break;
            case "micrometer":
                bulkhead = builder.build();
                BulwarkMetrics.of(new SimpleMeterRegistry()).bind(bulkhead);
                break;
            case "prometheus":
                bulkhead = builder.build();
                BulwarkMetrics.of(new PrometheusMeterRegistry(PrometheusConfig.DEFAULT)).bind(bulkhead);
                break;
            case "prometheus-no-histograms":
                bulkhead = builder.build();
                BulwarkMetrics.builder(new PrometheusMeterRegistry(PrometheusConfig.DEFAULT)).histograms(false).build()
                        .bind(bulkhead);
                break;
            case "opentelemetry":
                bulkhead = builder.build();
                meterProvider = SdkMeterProvider.builder().registerMetricReader(InMemoryMetricReader.create()).build();
                BulwarkTelemetry.create(OpenTelemetrySdk.builder().setMeterProvider(meterProvider).build())
                        .bind(bulkhead);
                break;
            default:
                throw new IllegalArgumentException("binding must be bare, listener, sampled, micrometer, prometheus,"
                        + " prometheus-no-histograms or opentelemetry but was " + binding);
        }
    }

    /** Closes the SDK. */
    @TearDown(Level.Trial)
    public void tearDown() {
        if (meterProvider != null) {
            meterProvider.close();
        }
    }

    /**
     * One uncontended sync call.
     *
     * @return the operation's result
     */
    @Benchmark
    public Object call() {
        return bulkhead.call(WORK);
    }

    /**
     * One uncontended async call whose stage is already complete.
     *
     * @return the future the bulkhead returned
     */
    @Benchmark
    public CompletableFuture<Object> callAsync() {
        return bulkhead.callAsync(ASYNC_WORK);
    }

    /** Takes part in sampling like a binding and records nothing: the cost of the dispatch and the sampler alone. */
    private static final class EmptySampledListener implements SampledListener {
        private final TimingSampler sampler = TimingSampler.adaptive();

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
                sampler.timed(endedAt);
            }
        }
    }
}
