package dev.bulwark.micrometer.internal;

import static dev.bulwark.micrometer.MeterNames.BULKHEAD_CALLS;
import static dev.bulwark.micrometer.MeterNames.TAG_OUTCOME;

import dev.bulwark.Rejection;
import dev.bulwark.internal.stats.ThreadOwnedCounter;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Tags;
import java.util.Locale;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.ToDoubleFunction;

/**
 * One bulkhead's calls by outcome, {@code bulwark.bulkhead.calls}: counts the binding keeps itself, published as
 * {@link FunctionCounter}s read when scraped (every outcome registered at 0).
 *
 * <h2>Design notes</h2>
 *
 * <p>Why function counters: an ordinary Micrometer {@code Counter} costs every admission a {@code DoubleAdder}'s
 * CAS, about a quarter of an uncontended call and what a bound call cost over a bare one. The admissions, counted on
 * every call, go to a {@link ThreadOwnedCounter} (a plain load and a release store to the thread's own cell); the
 * rarer outcomes to {@link LongAdder}s. The counts are cumulative whatever the registry, and a step registry's
 * function counter publishes their per-step increase itself, so the derived counts (the execution timer's, the
 * {@code normal} priority's) read them directly.
 *
 * <p>Every count is exact once the calls that made it have returned (a sum read while calls are counted lies between
 * the counts before and after it, and sums never go down). Thread-safe; recording never blocks or allocates (but
 * once per thread that claims a cell of the admission counter). Micrometer holds a function counter's object weakly,
 * so the listener keeps this object.
 */
final class CallCounts {

    private final ThreadOwnedCounter admitted = new ThreadOwnedCounter();
    private final LongAdder cancelled = new LongAdder();
    /** Indexed by {@link Rejection.Reason#ordinal()}. */
    private final LongAdder[] rejected;

    private CallCounts() {
        rejected = new LongAdder[Rejection.Reason.values().length];
        for (int i = 0; i < rejected.length; i++) {
            rejected[i] = new LongAdder();
        }
    }

    /** Registers {@code bulwark.bulkhead.calls} for every outcome in {@code group}, over new counts at 0. */
    static CallCounts register(MeterGroup group, Tags tags) {
        ThreadOwnedCounter.rehearse(); // the first admitted call must load nothing (MetricsFirstCallsTest)
        CallCounts counts = new CallCounts();
        counter(group, tags, BulkheadMeters.ADMITTED, counts, CallCounts::admittedCount);
        counter(group, tags, BulkheadMeters.CANCELLED, counts, CallCounts::cancelledCount);
        for (Rejection.Reason reason : Rejection.Reason.values()) {
            counter(group, tags, rejectedOutcome(reason), counts, c -> c.rejectedCount(reason));
        }
        return counts;
    }

    static String rejectedOutcome(Rejection.Reason reason) {
        return "rejected." + reason.name().toLowerCase(Locale.ROOT);
    }

    private static void counter(MeterGroup group, Tags tags, String outcome, CallCounts counts,
                                ToDoubleFunction<CallCounts> read) {
        group.add(FunctionCounter.builder(BULKHEAD_CALLS, counts, read).tags(tags).tag(TAG_OUTCOME, outcome)
                .description("Calls that reached the bulkhead, by how they ended there")
                .register(group.registry()));
    }

    /** The admission counter, which the listener increments itself (one dependent load less per call). */
    ThreadOwnedCounter admissions() {
        return admitted;
    }

    void cancelled() {
        cancelled.increment();
    }

    void rejected(Rejection.Reason reason) {
        rejected[reason.ordinal()].increment();
    }

    long admittedCount() {
        return admitted.sum();
    }

    long cancelledCount() {
        return cancelled.sum();
    }

    long rejectedCount(Rejection.Reason reason) {
        return rejected[reason.ordinal()].sum();
    }
}
