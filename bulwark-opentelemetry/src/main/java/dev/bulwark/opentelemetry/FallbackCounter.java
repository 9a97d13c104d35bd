package dev.bulwark.opentelemetry;

import static dev.bulwark.opentelemetry.InstrumentNames.ERROR_TYPE;
import static dev.bulwark.opentelemetry.InstrumentNames.FALLBACK_CALLS;
import static dev.bulwark.opentelemetry.InstrumentNames.FALLBACK_NAME;

import dev.bulwark.internal.binding.FallbackCounts;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.metrics.Meter;
import io.opentelemetry.api.metrics.ObservableLongCounter;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Consumer;

/**
 * Counts the failures a {@link dev.bulwark.Fallback} turned into values, as {@value InstrumentNames#FALLBACK_CALLS}
 * with the fallback's name ({@code bulwark.fallback.name}) and the failure's fully qualified class name
 * ({@code error.type}). Pass it to {@link dev.bulwark.Fallback#onFallback}; get it from
 * {@link BulwarkTelemetry#fallbackCounter(String)}.
 *
 * <p>Counts live in a striped adder per exception type, read at collection: counting allocates nothing once a type
 * has been seen. {@link #close()} stops reporting and counting. Thread-safe.
 */
public final class FallbackCounter implements Consumer<Throwable>, AutoCloseable {

    private final String name;
    /** What is counted and when (core's); this class only names the counts and reports them. */
    private final FallbackCounts<Count> counts;
    private final ObservableLongCounter observation;
    private final Consumer<FallbackCounter> onClose;

    FallbackCounter(Meter meter, String name, Consumer<FallbackCounter> onClose) {
        this.name = name;
        Attributes named = Attributes.of(FALLBACK_NAME, name);
        this.counts = new FallbackCounts<>(type -> new Count(named.toBuilder().put(ERROR_TYPE, type.getName())
                .build()));
        this.onClose = onClose;
        FallbackCounts<Count> reported = counts;
        this.observation = meter.counterBuilder(FALLBACK_CALLS).setUnit("{call}")
                .setDescription("Failures a fallback turned into a value, by exception type")
                .buildWithCallback(measurement -> reported.forEach(
                        count -> measurement.record(count.adder.sum(), count.attributes)));
    }

    /**
     * Counts one fallback caused by {@code failure}. Does nothing once closed.
     *
     * @param failure the failure turned into a value
     * @throws NullPointerException when {@code failure} is {@code null}
     */
    @Override
    public void accept(Throwable failure) {
        Count count = counts.of(failure);
        if (count != null) {
            count.adder.increment();
        }
    }

    /** Stops reporting this counter's series and stops counting. Idempotent; never throws. */
    @Override
    public void close() {
        if (counts.close()) {
            observation.close();
            onClose.accept(this);
        }
    }

    @Override
    public String toString() {
        return "FallbackCounter[" + name + "]" + (counts.isClosed() ? " (closed)" : "");
    }

    private static final class Count {
        final Attributes attributes;
        final LongAdder adder = new LongAdder();

        Count(Attributes attributes) {
            this.attributes = attributes;
        }
    }
}
