package dev.bulwark.internal.stats;

import dev.bulwark.Priority;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongSupplier;

/**
 * One bulkhead's calls per {@link Priority} and {@link Outcome} (admitted, rejected, cancelled), as the metrics
 * bindings publish them: every combination of {@link Priority#values()} and {@link Outcome#values()}, each read with
 * {@link #count(Priority, Outcome)} and tagged with {@link #tag(Priority)} and {@link Outcome#tag()}. Each binding
 * registers its own meters over one of these; that is all a back end adds.
 *
 * <h2>Design notes</h2>
 *
 * <p><b>Why the NORMAL admissions are derived.</b> Almost every call of almost every bulkhead is a NORMAL one (a call
 * made without {@code CallOptions} is NORMAL), and counting it here too would add a second increment to the
 * uncontended call. So only the other priorities' admissions are counted, and NORMAL's is derived when read: all
 * admissions (the count the binding keeps anyway, given as {@code allAdmitted}) less the others'.
 *
 * <p><b>Invariant.</b> An admission of another priority increments its own count <em>before</em> the binding
 * increments the total, and {@link #normalAdmitted()} reads the total <em>before</em> the others. The increments are
 * volatile writes (an adder's CAS, or a release store) and the reads volatile or acquire reads, so an admission whose
 * total increment the read saw had its own increment happen before, and the others' read includes it. Hence
 * {@code total - others} counts no more than the NORMAL admissions inside the total read: the derived value is never
 * above the true NORMAL count. It can be below it by admissions racing the read (counted in the others but not yet
 * in the total); it is kept monotonic by publishing the maximum derived so far (a counter must not go down), and it
 * is exact whenever the bulkhead is quiet. Refusals and cancellations are rare paths and are counted per priority
 * directly.
 *
 * <p>Thread-safe; recording is one increment for a non-NORMAL admission and nothing for a NORMAL one; never blocks.
 */
public final class PriorityTally {

    /** How a call that reached the bulkhead ended there, as the per-priority series tell it. */
    public enum Outcome {
        /** Admitted, at once or after a wait. */
        ADMITTED,
        /** Refused, for any reason (an eviction included). */
        REJECTED,
        /** Left the queue because its caller gave up. */
        CANCELLED;

        private final String tag = name().toLowerCase(Locale.ROOT);

        /**
         * Returns the value of the outcome tag or attribute of this outcome's series.
         *
         * @return {@code admitted}, {@code rejected} or {@code cancelled}
         */
        public String tag() {
            return tag;
        }
    }

    private static final Priority[] PRIORITIES = Priority.values();

    private final LongSupplier allAdmitted;
    /** Admissions by priority ordinal; NORMAL's cell stays at 0 (derived, see the class comment). */
    private final LongAdder[] admitted = adders();
    private final LongAdder[] rejected = adders();
    private final LongAdder[] cancelled = adders();
    /** The last derived NORMAL admission count published, so that it never goes down. */
    private final AtomicLong normalPublished = new AtomicLong();

    /**
     * Creates the tally of one bulkhead.
     *
     * @param allAdmitted reads the cumulative count of all the bulkhead's admissions (NORMAL ones included), which
     *     the binding increments after {@link #admitted(Priority)}
     */
    public PriorityTally(LongSupplier allAdmitted) {
        this.allAdmitted = allAdmitted;
    }

    private static LongAdder[] adders() {
        LongAdder[] adders = new LongAdder[PRIORITIES.length];
        for (int i = 0; i < adders.length; i++) {
            adders[i] = new LongAdder();
        }
        return adders;
    }

    /** Counts an admission; called <em>before</em> the binding increments its total admission count. */
    public void admitted(Priority priority) {
        if (priority != Priority.NORMAL) {
            admitted[priority.ordinal()].increment();
        }
    }

    /** Counts a refusal of a call of {@code priority} (for an eviction, the evicted call's). */
    public void rejected(Priority priority) {
        rejected[priority.ordinal()].increment();
    }

    /** Counts a queued call of {@code priority} that left because its caller gave up. */
    public void cancelled(Priority priority) {
        cancelled[priority.ordinal()].increment();
    }

    /**
     * Returns the value of the priority tag or attribute of {@code priority}'s series.
     *
     * @param priority the priority
     * @return its name in lower case ({@code normal}, {@code critical}...)
     */
    public static String tag(Priority priority) {
        return priority.name().toLowerCase(Locale.ROOT);
    }

    /**
     * Returns the calls of {@code priority} that ended with {@code outcome} so far.
     *
     * @param priority the priority the calls asked for
     * @param outcome how they ended
     * @return {@link #admittedCount}, {@link #rejectedCount} or {@link #cancelledCount} of {@code priority}
     */
    public long count(Priority priority, Outcome outcome) {
        switch (outcome) {
            case ADMITTED:
                return admittedCount(priority);
            case REJECTED:
                return rejectedCount(priority);
            default:
                return cancelledCount(priority);
        }
    }

    /** The admissions of {@code priority} so far (derived for NORMAL, see the class comment). */
    public long admittedCount(Priority priority) {
        return priority == Priority.NORMAL ? normalAdmitted() : admitted[priority.ordinal()].sum();
    }

    /** The refusals of calls of {@code priority} so far. */
    public long rejectedCount(Priority priority) {
        return rejected[priority.ordinal()].sum();
    }

    /** The cancellations of calls of {@code priority} so far. */
    public long cancelledCount(Priority priority) {
        return cancelled[priority.ordinal()].sum();
    }

    private long normalAdmitted() {
        long all = allAdmitted.getAsLong();
        long others = 0;
        for (LongAdder count : admitted) {
            others += count.sum();
        }
        long derived = Math.max(0L, all - others);
        return normalPublished.accumulateAndGet(derived, Math::max);
    }
}
