package dev.bulwark.micrometer;

import static dev.bulwark.micrometer.MeterNames.FALLBACK_USED;
import static dev.bulwark.micrometer.MeterNames.TAG_EXCEPTION;

import dev.bulwark.internal.binding.FallbackCounts;
import dev.bulwark.micrometer.internal.MeterGroup;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import java.util.function.Consumer;

/**
 * Counts the failures a {@link dev.bulwark.Fallback} turned into values, as {@value MeterNames#FALLBACK_USED} tagged
 * with the fallback's name and the failure's simple class name ({@value MeterNames#TAG_EXCEPTION}). Pass it to
 * {@link dev.bulwark.Fallback#onFallback}; get it from {@link BulwarkMetrics#fallbackCounter(String)}.
 *
 * <p>A counter per exception type is registered the first time that type is seen. {@link #close()} removes them and
 * stops counting. Thread-safe.
 */
public final class FallbackCounter implements Consumer<Throwable>, AutoCloseable {

    private final Tags tags;
    private final MeterGroup group;
    private final Consumer<FallbackCounter> onClose;
    /** What is counted and when (core's); this class only registers the counters. */
    private final FallbackCounts<Counter> counts;

    FallbackCounter(MeterRegistry registry, Tags tags, Consumer<FallbackCounter> onClose) {
        this.tags = tags;
        this.group = new MeterGroup(registry);
        this.onClose = onClose;
        this.counts = new FallbackCounts<>(type -> group.add(Counter.builder(FALLBACK_USED).tags(tags)
                .tag(TAG_EXCEPTION, exceptionTag(type))
                .description("Failures a fallback turned into a value, by exception type")
                .register(group.registry())));
    }

    /**
     * Counts one fallback caused by {@code failure}. Does nothing once closed. Never throws for a non-null failure.
     *
     * @param failure the failure turned into a value
     * @throws NullPointerException when {@code failure} is {@code null}
     */
    @Override
    public void accept(Throwable failure) {
        Counter counter = counts.of(failure);
        if (counter != null) {
            counter.increment();
        }
    }

    private static String exceptionTag(Class<?> type) {
        String simpleName = type.getSimpleName();
        return simpleName.isEmpty() ? type.getName() : simpleName;
    }

    /** Removes this counter's meters and stops counting. Idempotent; never throws. */
    @Override
    public void close() {
        if (counts.close()) {
            // No counter is registered after the close above, so every one is in the group now.
            group.removeAll();
            onClose.accept(this);
        }
    }

    @Override
    public String toString() {
        return "FallbackCounter" + tags + (counts.isClosed() ? " (closed)" : "");
    }
}
