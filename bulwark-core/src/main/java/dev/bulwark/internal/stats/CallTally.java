package dev.bulwark.internal.stats;

import dev.bulwark.Rejection;
import java.util.concurrent.atomic.LongAdder;

/**
 * One bulkhead's calls by how they ended there (admitted, cancelled, refused by {@link Rejection.Reason}): the counts
 * a metrics binding keeps itself and its back end reads when it collects (Micrometer's function counters,
 * OpenTelemetry's asynchronous counter), the same for both.
 *
 * <h2>Design notes</h2>
 *
 * <p>Why counts of its own rather than the back end's counters: a Micrometer {@code Counter} costs every admission a
 * {@code DoubleAdder}'s CAS, about a quarter of an uncontended call. The admissions, counted on every call, go to a
 * {@link ThreadOwnedCounter} (a plain load and a release store to the thread's own cell); the rarer outcomes to
 * {@link LongAdder}s (striped, so concurrent callers do not contend on one cache line). The counts are cumulative.
 *
 * <p>Every count is exact once the calls that made it have returned (a sum read while calls are counted lies between
 * the counts before and after it, and sums never go down). Thread-safe; recording never blocks or allocates (but once
 * per thread that claims a cell of the admission counter). Nothing here refers to the bulkhead or to a listener, so
 * a back end's callback may hold it strongly.
 */
public final class CallTally {

    private static final Rejection.Reason[] REASONS = Rejection.Reason.values();

    /** The outcome of an admitted call, as {@link #count(int)} and the back ends' series index them. */
    public static final int ADMITTED = 0;
    /** The outcome of a call whose caller gave up while it waited. */
    public static final int CANCELLED = 1;
    /** How many outcomes there are: admitted, cancelled, and one per {@link Rejection.Reason} ({@link #outcomeOf}). */
    public static final int OUTCOMES = 2 + REASONS.length;

    private final ThreadOwnedCounter admitted = new ThreadOwnedCounter();
    private final LongAdder cancelled = new LongAdder();
    /** Indexed by {@link Rejection.Reason#ordinal()}. */
    private final LongAdder[] rejected;

    /**
     * Returns the outcome of a call refused for {@code reason}.
     *
     * @param reason why it was refused
     * @return its index, from 2 on, in {@link Rejection.Reason} order
     */
    public static int outcomeOf(Rejection.Reason reason) {
        return 2 + reason.ordinal();
    }

    /**
     * Returns the reason of a refused call's outcome.
     *
     * @param outcome an outcome from {@link #outcomeOf(Rejection.Reason)}
     * @return the reason, or {@code null} for {@link #ADMITTED} and {@link #CANCELLED}
     */
    public static Rejection.Reason reason(int outcome) {
        return outcome < 2 ? null : REASONS[outcome - 2];
    }

    /** Creates counts at 0. */
    public CallTally() {
        rejected = new LongAdder[REASONS.length];
        for (int i = 0; i < rejected.length; i++) {
            rejected[i] = new LongAdder();
        }
    }

    /**
     * Returns the admission counter, which the observer increments itself (one dependent load less per call).
     *
     * @return the counter of every admitted call
     */
    public ThreadOwnedCounter admissions() {
        return admitted;
    }

    /** Counts a call whose caller gave up while it waited. */
    public void cancelled() {
        cancelled.increment();
    }

    /**
     * Counts a refused call.
     *
     * @param reason why it was refused
     */
    public void rejected(Rejection.Reason reason) {
        rejected[reason.ordinal()].increment();
    }

    /**
     * Returns the calls that ended with {@code outcome} so far.
     *
     * @param outcome {@link #ADMITTED}, {@link #CANCELLED} or one of {@link #outcomeOf(Rejection.Reason)}
     * @return the cumulative count
     */
    public long count(int outcome) {
        switch (outcome) {
            case ADMITTED:
                return admitted.sum();
            case CANCELLED:
                return cancelled.sum();
            default:
                return rejected[outcome - 2].sum();
        }
    }

    /**
     * Returns the calls admitted so far.
     *
     * @return the cumulative count
     */
    public long admittedCount() {
        return admitted.sum();
    }

    /**
     * Returns the calls cancelled so far.
     *
     * @return the cumulative count
     */
    public long cancelledCount() {
        return cancelled.sum();
    }

    /**
     * Returns the calls refused so far for {@code reason}.
     *
     * @param reason the reason
     * @return the cumulative count
     */
    public long rejectedCount(Rejection.Reason reason) {
        return rejected[reason.ordinal()].sum();
    }
}
