package dev.bulwark.opentelemetry;

import static dev.bulwark.opentelemetry.InstrumentNames.ERROR_TYPE;
import static dev.bulwark.opentelemetry.InstrumentNames.FALLBACK_CALLS;
import static dev.bulwark.opentelemetry.InstrumentNames.FALLBACK_NAME;

import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.metrics.Meter;
import io.opentelemetry.api.metrics.ObservableLongCounter;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
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
    private final Attributes named;
    private final Map<Class<?>, Count> counts = new ConcurrentHashMap<>();
    private final ObservableLongCounter observation;
    private final Consumer<FallbackCounter> onClose;
    private volatile boolean closed;

    FallbackCounter(Meter meter, String name, Consumer<FallbackCounter> onClose) {
        this.name = name;
        this.named = Attributes.of(FALLBACK_NAME, name);
        this.onClose = onClose;
        this.observation = meter.counterBuilder(FALLBACK_CALLS).setUnit("{call}")
                .setDescription("Failures a fallback turned into a value, by exception type")
                .buildWithCallback(measurement -> counts.values()
                        .forEach(count -> measurement.record(count.adder.sum(), count.attributes)));
    }

    /**
     * Counts one fallback caused by {@code failure}. Does nothing once closed.
     *
     * @param failure the failure turned into a value
     * @throws NullPointerException when {@code failure} is {@code null}
     */
    @Override
    public void accept(Throwable failure) {
        Class<?> type = Objects.requireNonNull(failure, "failure").getClass();
        if (closed) {
            return;
        }
        Count count = counts.get(type);
        if (count == null) {
            count = counts.computeIfAbsent(type, key -> new Count(named.toBuilder().put(ERROR_TYPE, key.getName())
                    .build()));
        }
        count.adder.increment();
    }

    /** Stops reporting this counter's series and stops counting. Idempotent; never throws. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        observation.close();
        onClose.accept(this);
    }

    @Override
    public String toString() {
        return "FallbackCounter[" + name + "]" + (closed ? " (closed)" : "");
    }

    private static final class Count {
        final Attributes attributes;
        final LongAdder adder = new LongAdder();

        Count(Attributes attributes) {
            this.attributes = attributes;
        }
    }
}
