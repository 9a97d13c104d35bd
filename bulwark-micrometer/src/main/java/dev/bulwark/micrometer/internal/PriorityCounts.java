package dev.bulwark.micrometer.internal;

import static dev.bulwark.micrometer.MeterNames.BULKHEAD_PRIORITY_CALLS;
import static dev.bulwark.micrometer.MeterNames.TAG_OUTCOME;
import static dev.bulwark.micrometer.MeterNames.TAG_PRIORITY;

import dev.bulwark.Priority;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Tags;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * One bulkhead's calls per {@link Priority}: {@code bulwark.bulkhead.priority.calls} by {@code priority} and
 * {@code outcome} ({@code admitted}, {@code rejected}, {@code cancelled}), function counters read when scraped.
 *
 * <p><b>Why the NORMAL admissions are derived.</b> Almost every call of almost every bulkhead is a NORMAL one (a call
 * made without {@code CallOptions} is NORMAL), and counting it again here would add a second striped increment to
 * the uncontended call. So only the other priorities' admissions are counted, and NORMAL's is derived at scrape: all
 * admissions less the others. Invariant: an admission of another priority increments its own count <em>before</em>
 * the total, and a scrape reads the total <em>before</em> the others; so every admission inside the total read is
 * also inside the others read if it is not NORMAL, and the derived value is never above the true NORMAL count. It can
 * be below it by admissions racing the scrape; it is kept monotonic (a counter must not go down) and is exact
 * whenever the bulkhead is quiet. Refusals and cancellations are rare paths and are counted per priority directly.
 *
 * <p>Thread-safe; recording is one increment for a non-NORMAL admission and nothing for a NORMAL one.
 */
final class PriorityCounts {

    static final String ADMITTED = "admitted";
    static final String REJECTED = "rejected";
    static final String CANCELLED = "cancelled";

    private static final Priority[] PRIORITIES = Priority.values();

    /** Admissions by priority ordinal; NORMAL's slot stays at 0 (derived, see the class comment). */
    private final LongAdder[] admitted = adders();
    private final LongAdder[] rejected = adders();
    private final LongAdder[] cancelled = adders();
    /** All admissions since binding (NORMAL ones included), read before the others. */
    private final CumulativeCount allAdmitted;
    /** The last derived NORMAL admission count published, so that it never goes down. */
    private final AtomicLong normalPublished = new AtomicLong();

    private PriorityCounts(CumulativeCount allAdmitted) {
        this.allAdmitted = allAdmitted;
    }

    /**
     * Registers the per-priority counters in {@code group} and returns what feeds them.
     *
     * @param allAdmitted the cumulative count of all admissions, incremented after {@link #admitted(Priority)}
     */
    static PriorityCounts register(MeterGroup group, Tags tags, CumulativeCount allAdmitted) {
        PriorityCounts counts = new PriorityCounts(allAdmitted);
        for (Priority priority : PRIORITIES) {
            int index = priority.ordinal();
            String tag = priority.name().toLowerCase(Locale.ROOT);
            if (priority == Priority.NORMAL) {
                counter(group, tags, tag, ADMITTED, counts, PriorityCounts::normalAdmitted);
            } else {
                counter(group, tags, tag, ADMITTED, counts, c -> c.admitted[index].sum());
            }
            counter(group, tags, tag, REJECTED, counts, c -> c.rejected[index].sum());
            counter(group, tags, tag, CANCELLED, counts, c -> c.cancelled[index].sum());
        }
        return counts;
    }

    private static void counter(MeterGroup group, Tags tags, String priority, String outcome, PriorityCounts counts,
                                java.util.function.ToDoubleFunction<PriorityCounts> read) {
        group.add(FunctionCounter.builder(BULKHEAD_PRIORITY_CALLS, counts, read).tags(tags)
                .tag(TAG_PRIORITY, priority).tag(TAG_OUTCOME, outcome)
                .description("Calls that reached the bulkhead, by the priority they asked for and how they ended there")
                .register(group.registry()));
    }

    private static LongAdder[] adders() {
        LongAdder[] adders = new LongAdder[PRIORITIES.length];
        for (int i = 0; i < adders.length; i++) {
            adders[i] = new LongAdder();
        }
        return adders;
    }

    /** Called before the total admission count is incremented. */
    void admitted(Priority priority) {
        if (priority != Priority.NORMAL) {
            admitted[priority.ordinal()].increment();
        }
    }

    void rejected(Priority priority) {
        rejected[priority.ordinal()].increment();
    }

    void cancelled(Priority priority) {
        cancelled[priority.ordinal()].increment();
    }

    private double normalAdmitted() {
        long all = allAdmitted.get();
        long others = 0;
        for (int i = 0; i < admitted.length; i++) {
            others += admitted[i].sum();
        }
        long derived = Math.max(0L, all - others);
        return normalPublished.accumulateAndGet(derived, Math::max);
    }
}
