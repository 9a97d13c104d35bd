package dev.bulwark.micrometer.internal;

import static dev.bulwark.micrometer.MeterNames.BULKHEAD_CALLS;
import static dev.bulwark.micrometer.MeterNames.TAG_OUTCOME;

import dev.bulwark.Rejection;
import dev.bulwark.internal.stats.CallTally;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Tags;
import java.util.Locale;

/**
 * One bulkhead's calls by outcome, {@code bulwark.bulkhead.calls}: {@link FunctionCounter}s over core's
 * {@link CallTally} (whose notes say why the binding keeps its own counts), read when scraped, every outcome
 * registered at 0. The counts are cumulative whatever the registry, and a step registry's function counter publishes
 * their per-step increase itself. Micrometer holds a function counter's object weakly, so the listener keeps the
 * tally.
 */
final class CallCounts {

    /** The {@code outcome} tag of each of {@link CallTally}'s outcomes, by its index. */
    private static final String[] OUTCOME_TAGS = new String[CallTally.OUTCOMES];

    static {
        OUTCOME_TAGS[CallTally.ADMITTED] = BulkheadMeters.ADMITTED;
        OUTCOME_TAGS[CallTally.CANCELLED] = BulkheadMeters.CANCELLED;
        for (Rejection.Reason reason : Rejection.Reason.values()) {
            OUTCOME_TAGS[CallTally.outcomeOf(reason)] = "rejected." + reason.name().toLowerCase(Locale.ROOT);
        }
    }

    private CallCounts() {
    }

    /** Registers {@code bulwark.bulkhead.calls} for every outcome in {@code group}, over {@code counts}. */
    static void register(MeterGroup group, Tags tags, CallTally counts) {
        for (int outcome = 0; outcome < CallTally.OUTCOMES; outcome++) {
            int read = outcome;
            group.add(FunctionCounter.builder(BULKHEAD_CALLS, counts, c -> c.count(read)).tags(tags)
                    .tag(TAG_OUTCOME, OUTCOME_TAGS[outcome])
                    .description("Calls that reached the bulkhead, by how they ended there")
                    .register(group.registry()));
        }
    }

    /** The {@code outcome} tag of a {@link CallTally} outcome ({@code admitted}, {@code rejected.wait_timeout}...). */
    static String outcomeTag(int outcome) {
        return OUTCOME_TAGS[outcome];
    }

    static String rejectedOutcome(Rejection.Reason reason) {
        return OUTCOME_TAGS[CallTally.outcomeOf(reason)];
    }
}
