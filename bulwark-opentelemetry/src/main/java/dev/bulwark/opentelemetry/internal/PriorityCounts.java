package dev.bulwark.opentelemetry.internal;

import static dev.bulwark.opentelemetry.InstrumentNames.BULKHEAD_OUTCOME;
import static dev.bulwark.opentelemetry.InstrumentNames.BULKHEAD_PRIORITY;
import static dev.bulwark.opentelemetry.InstrumentNames.BULKHEAD_PRIORITY_CALLS;

import dev.bulwark.Priority;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.metrics.Meter;
import io.opentelemetry.api.metrics.ObservableLongMeasurement;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * One bulkhead's calls per {@link Priority}: the asynchronous counter {@code bulwark.bulkhead.priority.calls} by
 * {@code bulwark.bulkhead.priority} and {@code bulwark.bulkhead.outcome} ({@code admitted}, {@code rejected},
 * {@code cancelled}), every combination reported from the first collection on (15 points, zeros included).
 *
 * <h2>Design notes</h2>
 *
 * <p><b>Why the NORMAL admissions are derived.</b> Almost every call of almost every bulkhead is a NORMAL one (a call
 * made without {@code CallOptions} is NORMAL), and counting it here too would add a second striped increment to the
 * uncontended call. So only the other priorities' admissions are counted, and NORMAL's is derived at collection: all
 * admissions (the {@code admitted} count the binding keeps anyway) less the others'.
 *
 * <p><b>Invariant.</b> An admission of another priority increments its own count <em>before</em> the total, and a
 * collection reads the total <em>before</em> the others. An adder's increment is a volatile write (a CAS) and its sum
 * reads every cell with volatile reads, so an admission whose total increment the collection saw had its own increment
 * happen before it, and the others' read includes it (the total is a {@link ThreadOwnedCounter}, whose increments
 * are release stores and whose reads acquire loads, which order the same way). Hence {@code total - others} counts no more than the NORMAL
 * admissions inside the total read: the derived value is never above the true NORMAL count. It can be below it by
 * admissions racing the collection (an admission of another priority counted in the others but not yet in the
 * total); it is kept monotonic by publishing the maximum of what was derived so far (a counter must not go down),
 * and it is exact whenever the bulkhead is quiet. Refusals and cancellations are rare paths and are counted per
 * priority directly.
 *
 * <p>The callback captures this object only, which refers to neither the bulkhead nor the listener. Thread-safe;
 * recording is one increment for a non-NORMAL admission and nothing for a NORMAL one.
 */
final class PriorityCounts {

    private static final Priority[] PRIORITIES = Priority.values();

    /** All admissions of the bulkhead (NORMAL ones included), incremented after {@link #admitted(Priority)}. */
    private final ThreadOwnedCounter allAdmitted;
    /** Admissions by priority ordinal; NORMAL's slot stays at 0 (derived, see the class comment). */
    private final LongAdder[] admitted = adders();
    private final LongAdder[] rejected = adders();
    private final LongAdder[] cancelled = adders();
    /** The last derived NORMAL admission count reported, so that it never goes down. */
    private final AtomicLong normalReported = new AtomicLong();
    /** Indexed by priority ordinal. */
    private final Attributes[] admittedAttributes = new Attributes[PRIORITIES.length];
    private final Attributes[] rejectedAttributes = new Attributes[PRIORITIES.length];
    private final Attributes[] cancelledAttributes = new Attributes[PRIORITIES.length];

    /**
     * Creates the counts of one bulkhead.
     *
     * @param allAdmitted the count of all the bulkhead's admissions, which the caller increments after
     *     {@link #admitted(Priority)}
     * @param named the attribute set naming the bulkhead
     */
    PriorityCounts(ThreadOwnedCounter allAdmitted, Attributes named) {
        this.allAdmitted = allAdmitted;
        for (Priority priority : PRIORITIES) {
            Attributes prioritized = named.toBuilder()
                    .put(BULKHEAD_PRIORITY, priority.name().toLowerCase(Locale.ROOT)).build();
            admittedAttributes[priority.ordinal()] = outcome(prioritized, "admitted");
            rejectedAttributes[priority.ordinal()] = outcome(prioritized, "rejected");
            cancelledAttributes[priority.ordinal()] = outcome(prioritized, "cancelled");
        }
    }

    /** Registers the asynchronous counter that reports these counts in {@code observations}. */
    void register(Meter meter, Observations observations) {
        observations.add(meter.counterBuilder(BULKHEAD_PRIORITY_CALLS).setUnit("{call}")
                .setDescription("Calls that reached the bulkhead, by the priority they asked for and how they ended"
                        + " there")
                .buildWithCallback(this::observe));
    }

    private static Attributes outcome(Attributes prioritized, String outcome) {
        return prioritized.toBuilder().put(BULKHEAD_OUTCOME, outcome).build();
    }

    private static LongAdder[] adders() {
        LongAdder[] adders = new LongAdder[PRIORITIES.length];
        for (int i = 0; i < adders.length; i++) {
            adders[i] = new LongAdder();
        }
        return adders;
    }

    /** Counts an admission; called <em>before</em> the total admission count is incremented. */
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

    /** The NORMAL admissions: all less the others, read in that order, never going down (see the class comment). */
    long normalAdmitted() {
        long all = allAdmitted.sum();
        long others = 0;
        for (LongAdder count : admitted) {
            others += count.sum();
        }
        long derived = Math.max(0L, all - others);
        return normalReported.accumulateAndGet(derived, Math::max);
    }

    private void observe(ObservableLongMeasurement measurement) {
        int normal = Priority.NORMAL.ordinal();
        for (int i = 0; i < PRIORITIES.length; i++) {
            measurement.record(i == normal ? normalAdmitted() : admitted[i].sum(), admittedAttributes[i]);
            measurement.record(rejected[i].sum(), rejectedAttributes[i]);
            measurement.record(cancelled[i].sum(), cancelledAttributes[i]);
        }
    }
}
