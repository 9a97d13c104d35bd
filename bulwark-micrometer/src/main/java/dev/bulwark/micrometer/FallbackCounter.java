package dev.bulwark.micrometer;

import static dev.bulwark.micrometer.MeterNames.FALLBACK_USED;
import static dev.bulwark.micrometer.MeterNames.TAG_EXCEPTION;

import dev.bulwark.micrometer.internal.MeterGroup;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.locks.ReentrantLock;
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
    private final ConcurrentMap<Class<?>, Counter> counters = new ConcurrentHashMap<>();
    /** Guards registration against {@link #close()}, so that no counter is registered after closing. */
    private final ReentrantLock lock = new ReentrantLock();
    private volatile boolean closed;

    FallbackCounter(MeterRegistry registry, Tags tags, Consumer<FallbackCounter> onClose) {
        this.tags = tags;
        this.group = new MeterGroup(registry);
        this.onClose = onClose;
    }

    /**
     * Counts one fallback caused by {@code failure}. Does nothing once closed. Never throws for a non-null failure.
     *
     * @param failure the failure turned into a value
     * @throws NullPointerException when {@code failure} is {@code null}
     */
    @Override
    public void accept(Throwable failure) {
        Class<?> type = Objects.requireNonNull(failure, "failure").getClass();
        Counter counter = counters.get(type);
        if (counter == null) {
            counter = register(type);
            if (counter == null) {
                return;
            }
        }
        counter.increment();
    }

    private Counter register(Class<?> type) {
        lock.lock();
        try {
            if (closed) {
                return null;
            }
            return counters.computeIfAbsent(type, key -> group.add(Counter.builder(FALLBACK_USED).tags(tags)
                    .tag(TAG_EXCEPTION, exceptionTag(key))
                    .description("Failures a fallback turned into a value, by exception type")
                    .register(group.registry())));
        } finally {
            lock.unlock();
        }
    }

    private static String exceptionTag(Class<?> type) {
        String simpleName = type.getSimpleName();
        return simpleName.isEmpty() ? type.getName() : simpleName;
    }

    /** Removes this counter's meters and stops counting. Idempotent; never throws. */
    @Override
    public void close() {
        lock.lock();
        try {
            if (closed) {
                return;
            }
            closed = true;
            group.removeAll();
            counters.clear();
        } finally {
            lock.unlock();
        }
        onClose.accept(this);
    }

    @Override
    public String toString() {
        return "FallbackCounter" + tags + (closed ? " (closed)" : "");
    }
}
