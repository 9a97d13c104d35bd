package dev.bulwark.opentelemetry.internal;

import static dev.bulwark.opentelemetry.InstrumentNames.BULKHEAD_OUTCOME;
import static dev.bulwark.opentelemetry.InstrumentNames.BULKHEAD_PRIORITY;
import static dev.bulwark.opentelemetry.InstrumentNames.BULKHEAD_PRIORITY_CALLS;

import dev.bulwark.Priority;
import dev.bulwark.internal.stats.PriorityTally;
import dev.bulwark.internal.stats.ThreadOwnedCounter;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.metrics.Meter;

/**
 * One bulkhead's calls per {@link Priority}: the asynchronous counter {@code bulwark.bulkhead.priority.calls} by
 * {@code bulwark.bulkhead.priority} and {@code bulwark.bulkhead.outcome} ({@code admitted}, {@code rejected},
 * {@code cancelled}), every combination reported from the first collection on (15 points, zeros included), read from
 * a {@link PriorityTally}. The tally's notes say why the NORMAL admissions are derived (all admissions, here the
 * binding's {@link ThreadOwnedCounter}, whose release stores and acquire reads order as the tally needs, less the
 * others') and why the derived count is never above the truth, monotonic, and exact when quiet; the tally also lists
 * the combinations and their attribute values, so that this class is only their OpenTelemetry form.
 *
 * <p>The callback captures the tally and the attributes only, which refer to neither the bulkhead nor the listener.
 */
final class PriorityCounts {

    private PriorityCounts() {
    }

    /**
     * Registers, in {@code observations}, the asynchronous counter that reports {@code tally}.
     *
     * @param named the attribute set naming the bulkhead
     */
    static void register(Meter meter, Observations observations, Attributes named, PriorityTally tally) {
        Priority[] priorities = Priority.values();
        PriorityTally.Outcome[] outcomes = PriorityTally.Outcome.values();
        Attributes[][] attributes = new Attributes[priorities.length][outcomes.length];
        for (Priority priority : priorities) {
            for (PriorityTally.Outcome outcome : outcomes) {
                attributes[priority.ordinal()][outcome.ordinal()] = named.toBuilder()
                        .put(BULKHEAD_PRIORITY, PriorityTally.tag(priority)).put(BULKHEAD_OUTCOME, outcome.tag())
                        .build();
            }
        }
        observations.add(meter.counterBuilder(BULKHEAD_PRIORITY_CALLS).setUnit("{call}")
                .setDescription("Calls that reached the bulkhead, by the priority they asked for and how they ended"
                        + " there")
                .buildWithCallback(measurement -> {
                    for (Priority priority : priorities) {
                        for (PriorityTally.Outcome outcome : outcomes) {
                            measurement.record(tally.count(priority, outcome),
                                    attributes[priority.ordinal()][outcome.ordinal()]);
                        }
                    }
                }));
    }
}
