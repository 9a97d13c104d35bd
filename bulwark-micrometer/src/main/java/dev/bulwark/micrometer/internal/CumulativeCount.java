package dev.bulwark.micrometer.internal;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.cumulative.CumulativeCounter;
import java.util.concurrent.atomic.LongAdder;

/**
 * The cumulative count of one of a bulkhead's counters, as the function meters that derive from it need it (a
 * function timer's count must be cumulative, whatever the registry does with it).
 *
 * <p>A cumulative Micrometer counter (the {@link CumulativeCounter} of {@code SimpleMeterRegistry} and other
 * cumulative registries, and Prometheus' counters) already holds it, so the call path pays nothing more than its
 * increment. A step registry's counter only knows the last step, so for those (and for any counter whose kind is
 * not known) this keeps its own striped count, one more increment on the call path.
 *
 * <p>Thread-safe and lock-free.
 */
final class CumulativeCount {

    private final Counter counter;
    /** {@code null} when {@link #counter} is cumulative. */
    private final LongAdder own;

    private CumulativeCount(Counter counter, LongAdder own) {
        this.counter = counter;
        this.own = own;
    }

    /** Returns the cumulative count of {@code counter}, which the caller increments alongside. */
    static CumulativeCount of(Counter counter) {
        return new CumulativeCount(counter, isCumulative(counter) ? null : new LongAdder());
    }

    /** Whether the counter's {@link Counter#count()} is the total since it was registered. */
    static boolean isCumulative(Counter counter) {
        if (counter instanceof CumulativeCounter) {
            return true;
        }
        // Prometheus' counters (both Micrometer modules) are cumulative; matched by name to need neither module.
        String type = counter.getClass().getName();
        return type.equals("io.micrometer.prometheusmetrics.PrometheusCounter")
                || type.equals("io.micrometer.prometheus.PrometheusCounter");
    }

    /** Called with every increment of the counter. */
    void increment() {
        LongAdder count = own;
        if (count != null) {
            count.increment();
        }
    }

    /** The count since binding. */
    long get() {
        LongAdder count = own;
        return count == null ? (long) counter.count() : count.sum();
    }
}
