package dev.bulwark.micrometer.internal;

import static dev.bulwark.micrometer.MeterNames.BULKHEAD_PRIORITY_CALLS;
import static dev.bulwark.micrometer.MeterNames.TAG_OUTCOME;
import static dev.bulwark.micrometer.MeterNames.TAG_PRIORITY;

import dev.bulwark.Priority;
import dev.bulwark.internal.stats.PriorityTally;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Tags;
import java.util.Locale;
import java.util.function.LongSupplier;
import java.util.function.ToDoubleFunction;

/**
 * One bulkhead's calls per {@link Priority}: {@code bulwark.bulkhead.priority.calls} by {@code priority} and
 * {@code outcome} ({@code admitted}, {@code rejected}, {@code cancelled}), function counters over a
 * {@link PriorityTally} read when scraped (every combination registered at 0). The tally's notes say why the NORMAL
 * admissions are derived and why the derived count is never above the truth, monotonic, and exact when quiet.
 */
final class PriorityCounts {

    private PriorityCounts() {
    }

    /**
     * Registers the per-priority counters in {@code group} and returns the tally that feeds them.
     *
     * @param allAdmitted the cumulative count of all admissions, incremented after {@link PriorityTally#admitted}
     */
    static PriorityTally register(MeterGroup group, Tags tags, LongSupplier allAdmitted) {
        PriorityTally tally = new PriorityTally(allAdmitted);
        for (Priority priority : Priority.values()) {
            String tag = priority.name().toLowerCase(Locale.ROOT);
            counter(group, tags, tag, "admitted", tally, counts -> counts.admittedCount(priority));
            counter(group, tags, tag, "rejected", tally, counts -> counts.rejectedCount(priority));
            counter(group, tags, tag, "cancelled", tally, counts -> counts.cancelledCount(priority));
        }
        return tally;
    }

    private static void counter(MeterGroup group, Tags tags, String priority, String outcome, PriorityTally tally,
                                ToDoubleFunction<PriorityTally> read) {
        group.add(FunctionCounter.builder(BULKHEAD_PRIORITY_CALLS, tally, read).tags(tags)
                .tag(TAG_PRIORITY, priority).tag(TAG_OUTCOME, outcome)
                .description("Calls that reached the bulkhead, by the priority they asked for and how they ended there")
                .register(group.registry()));
    }
}
