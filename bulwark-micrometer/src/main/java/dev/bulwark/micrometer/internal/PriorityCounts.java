package dev.bulwark.micrometer.internal;

import static dev.bulwark.micrometer.MeterNames.BULKHEAD_PRIORITY_CALLS;
import static dev.bulwark.micrometer.MeterNames.TAG_OUTCOME;
import static dev.bulwark.micrometer.MeterNames.TAG_PRIORITY;

import dev.bulwark.Priority;
import dev.bulwark.internal.stats.PriorityTally;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Tags;

/**
 * One bulkhead's calls per {@link Priority}: {@code bulwark.bulkhead.priority.calls} by {@code priority} and
 * {@code outcome} ({@code admitted}, {@code rejected}, {@code cancelled}), function counters over a
 * {@link PriorityTally} read when scraped (every combination registered at 0). The tally's notes say why the NORMAL
 * admissions are derived and why the derived count is never above the truth, monotonic, and exact when quiet; the
 * tally also lists the combinations and their tag values, so that this class is only their Micrometer form.
 */
final class PriorityCounts {

    private PriorityCounts() {
    }

    /** Registers the per-priority counters over {@code tally} in {@code group}. */
    static void register(MeterGroup group, Tags tags, PriorityTally tally) {
        for (Priority priority : Priority.values()) {
            for (PriorityTally.Outcome outcome : PriorityTally.Outcome.values()) {
                group.add(FunctionCounter.builder(BULKHEAD_PRIORITY_CALLS, tally, t -> t.count(priority, outcome))
                        .tags(tags).tag(TAG_PRIORITY, PriorityTally.tag(priority)).tag(TAG_OUTCOME, outcome.tag())
                        .description("Calls that reached the bulkhead, by the priority they asked for and how they"
                                + " ended there")
                        .register(group.registry()));
            }
        }
    }
}
