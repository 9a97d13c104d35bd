package dev.bulwark.opentelemetry.internal;

import static dev.bulwark.opentelemetry.InstrumentNames.BULKHEAD_OUTCOME;
import static dev.bulwark.opentelemetry.InstrumentNames.BULKHEAD_PRIORITY;
import static dev.bulwark.opentelemetry.InstrumentNames.BULKHEAD_PRIORITY_CALLS;

import dev.bulwark.Priority;
import dev.bulwark.internal.stats.PriorityTally;
import dev.bulwark.internal.stats.ThreadOwnedCounter;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.metrics.Meter;
import io.opentelemetry.api.metrics.ObservableLongMeasurement;
import java.util.Locale;

/**
 * One bulkhead's calls per {@link Priority}: the asynchronous counter {@code bulwark.bulkhead.priority.calls} by
 * {@code bulwark.bulkhead.priority} and {@code bulwark.bulkhead.outcome} ({@code admitted}, {@code rejected},
 * {@code cancelled}), every combination reported from the first collection on (15 points, zeros included), read from
 * a {@link PriorityTally}. The tally's notes say why the NORMAL admissions are derived (all admissions, here the
 * binding's {@link ThreadOwnedCounter}, whose release stores and acquire reads order as the tally needs, less the
 * others') and why the derived count is never above the truth, monotonic, and exact when quiet.
 *
 * <p>The callback captures this object only, which refers to neither the bulkhead nor the listener. Thread-safe.
 */
final class PriorityCounts {

    private static final Priority[] PRIORITIES = Priority.values();

    private final PriorityTally tally;
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
        this.tally = new PriorityTally(allAdmitted::sum);
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

    /** Counts an admission; called <em>before</em> the total admission count is incremented. */
    void admitted(Priority priority) {
        tally.admitted(priority);
    }

    void rejected(Priority priority) {
        tally.rejected(priority);
    }

    void cancelled(Priority priority) {
        tally.cancelled(priority);
    }

    private void observe(ObservableLongMeasurement measurement) {
        for (Priority priority : PRIORITIES) {
            int i = priority.ordinal();
            measurement.record(tally.admittedCount(priority), admittedAttributes[i]);
            measurement.record(tally.rejectedCount(priority), rejectedAttributes[i]);
            measurement.record(tally.cancelledCount(priority), cancelledAttributes[i]);
        }
    }
}
