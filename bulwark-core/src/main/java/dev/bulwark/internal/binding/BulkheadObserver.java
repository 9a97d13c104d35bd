package dev.bulwark.internal.binding;

import dev.bulwark.Priority;
import dev.bulwark.Rejection;
import dev.bulwark.internal.stats.CallTally;
import dev.bulwark.internal.stats.CallerContextListener;
import dev.bulwark.internal.stats.PriorityTally;
import dev.bulwark.internal.stats.SampledListener;
import dev.bulwark.internal.stats.ThreadOwnedCounter;
import dev.bulwark.internal.stats.TimingOptions;
import dev.bulwark.internal.stats.TimingSampler;
import java.time.Duration;

/**
 * What both metrics back ends observe of a bulkhead's calls, when, and at what cost; the back end (Micrometer's
 * meters, OpenTelemetry's instruments) extends it with only where a wait, a release and an observation go.
 *
 * <ul>
 *   <li><b>Counts.</b> Every call is counted once by how it ended ({@link #calls()}) and by the priority it asked for
 *       ({@link #priorities()}); the per-priority count is made <em>before</em> the total, as {@link PriorityTally}
 *       requires. A call that found a free slot costs one increment of its thread's cell and nothing else: a NORMAL
 *       admission adds nothing per priority, and a wait of 0 is neither recorded nor observed.</li>
 *   <li><b>Waits.</b> Recorded ({@link #recordWait}) for a call admitted after a wait, for every cancelled call, and
 *       for the refusals that always follow a wait ({@link Wait#of}: a timed-out wait, an eviction); a full queue
 *       refuses at once, and a close or a lowered limit may refuse a call that waited or one that just arrived, so
 *       those are counted only. A refusal's or a cancellation's wait is recorded before it is counted, so that a
 *       reader that sees the count sees its wait.</li>
 *   <li><b>Executions.</b> Sampled, as {@link SampledListener} says: with {@code exactTiming} every one is timed, else
 *       a sample sized from the call rate ({@link TimingOptions#sampler()}); a timed release is recorded with the
 *       number of calls it stands for ({@link #recordSampledRelease}), a release reported one by one (a bulkhead that
 *       times every call) with {@link #recordRelease}.</li>
 *   <li><b>Observations.</b> When the back end makes them ({@code observesWaits}: Micrometer's observations,
 *       OpenTelemetry's span events), every call that waited or was refused is observed in its caller's context
 *       ({@link #captureCallerContext()}, taken on the caller's thread as its call starts to wait), after its count;
 *       a call that found a free slot never is. When they are off, nothing is captured.</li>
 * </ul>
 *
 * <p>The one-argument listener methods serve bulkheads that report no priority: their calls are NORMAL ones.
 * Thread-safe when the back end's recording is; allocates nothing per event here. Nothing here refers to the
 * bulkhead, and the tallies refer to neither the bulkhead nor this listener, so a back end's callbacks may hold them.
 */
public abstract class BulkheadObserver extends AttachedListener implements SampledListener, CallerContextListener {

    /** A wait that is recorded, by how it ended. */
    public enum Wait {
        /** The call got its slot after waiting. */
        ADMITTED,
        /** The wait reached its maximum ({@link Rejection.Reason#WAIT_TIMEOUT}). */
        TIMED_OUT,
        /** A call of higher priority took its place ({@link Rejection.Reason#EVICTED}). */
        EVICTED,
        /** The caller gave up. */
        CANCELLED;

        /**
         * Returns the recorded wait of a refusal for {@code reason}, or {@code null} for a refusal that need not
         * follow a wait (whose wait is not recorded).
         *
         * @param reason why a call was refused
         * @return {@link #TIMED_OUT}, {@link #EVICTED} or {@code null}
         */
        public static Wait of(Rejection.Reason reason) {
            // Compared, not switched on: a switch on another class's enum compiles to a synthetic class of its own,
            // which a JVM's first refusal would load on the caller's (often a server's) thread.
            if (reason == Rejection.Reason.WAIT_TIMEOUT) {
                return TIMED_OUT;
            }
            return reason == Rejection.Reason.EVICTED ? EVICTED : null;
        }
    }

    private final TimingSampler sampler;
    private final CallTally calls = new CallTally();
    /** {@code calls}' admission counter, held directly: the one count every call makes. */
    private final ThreadOwnedCounter admissions = calls.admissions();
    private final PriorityTally priorities = new PriorityTally(calls::admittedCount);
    /** Read only on a wait or a refusal, so the call that found a free slot pays nothing for it either way. */
    private final boolean observesWaits;

    /**
     * Creates the observer of one bulkhead, with its counts at 0. Takes, on the binding thread, every path of a first
     * admission count, so that a caller's first admission loads nothing ({@link ThreadOwnedCounter#rehearse()}), and
     * loads {@link Wait}, so that a caller's first refusal does not.
     *
     * @param timing whether every execution is timed instead of a sample
     * @param observesWaits whether waits and refusals are observed ({@link #observe})
     */
    protected BulkheadObserver(TimingOptions timing, boolean observesWaits) {
        ThreadOwnedCounter.rehearse();
        Wait.of(Rejection.Reason.WAIT_TIMEOUT);
        this.sampler = timing.sampler();
        this.observesWaits = observesWaits;
    }

    /**
     * Returns the calls by how they ended, for the back end to read.
     *
     * @return the counts, the same instance every time
     */
    protected final CallTally calls() {
        return calls;
    }

    /**
     * Returns the calls by priority and outcome, for the back end to read.
     *
     * @return the counts, the same instance every time
     */
    protected final PriorityTally priorities() {
        return priorities;
    }

    /**
     * Records a wait that ended as {@code wait}; called only for the waits the class comment lists (an admission's
     * only when it waited).
     *
     * @param wait how it ended
     * @param nanos how long it lasted
     */
    protected abstract void recordWait(Wait wait, long nanos);

    /**
     * Records an execution reported one by one (the bulkhead times every call).
     *
     * @param nanos how long the call held its slot
     */
    protected abstract void recordRelease(long nanos);

    /**
     * Records a timed execution of a sampled bulkhead.
     *
     * @param nanos how long the call held its slot
     * @param weight how many calls it stands for (one in {@code weight} calls is timed)
     */
    protected abstract void recordSampledRelease(long nanos, long weight);

    /**
     * Captures the caller's context, on its thread; called only when waits are observed.
     *
     * @return the context (an observation, a span), or {@code null} when there is none
     */
    protected abstract Object captureCallerContext();

    /**
     * Observes a call that waited or was refused, in its caller's context; called only when waits are observed.
     *
     * @param outcome how the call ended, as {@link CallTally} indexes it
     * @param rejection the refusal, {@code null} unless the call was refused
     * @param waitedNanos how long it waited
     * @param callerContext what {@link #captureCallerContext()} returned, or {@code null} for the current context
     */
    protected abstract void observe(int outcome, Rejection rejection, long waitedNanos, Object callerContext);

    @Override
    public final TimingSampler sampler() {
        return sampler;
    }

    @Override
    public void releasesSampled() {
        // Nothing to derive unless the back end's execution count needs it.
    }

    @Override
    public final Object callerContext() {
        return observesWaits ? captureCallerContext() : null;
    }

    @Override
    public final void admitted(long waitedNanos) {
        admitted(waitedNanos, Priority.NORMAL, null);
    }

    @Override
    public final void admitted(long waitedNanos, Priority priority) {
        admitted(waitedNanos, priority, null);
    }

    @Override
    public final void admitted(long waitedNanos, Priority priority, Object callerContext) {
        priorities.admitted(priority); // before the total: see PriorityTally
        admissions.increment();
        if (waitedNanos > 0) {
            recordWait(Wait.ADMITTED, waitedNanos);
            if (observesWaits) {
                observe(CallTally.ADMITTED, null, waitedNanos, callerContext);
            }
        }
    }

    @Override
    public final void rejected(Rejection rejection) {
        rejected(rejection, null);
    }

    @Override
    public final void rejected(Rejection rejection, Object callerContext) {
        priorities.rejected(rejection.priority());
        long waitedNanos = nanos(rejection.waited());
        Wait wait = Wait.of(rejection.reason());
        if (wait != null) {
            recordWait(wait, waitedNanos);
        }
        calls.rejected(rejection.reason()); // after the wait: a reader that sees the count sees its wait
        if (observesWaits) {
            observe(CallTally.outcomeOf(rejection.reason()), rejection, waitedNanos, callerContext);
        }
    }

    @Override
    public final void cancelled(long waitedNanos) {
        cancelled(waitedNanos, Priority.NORMAL, null);
    }

    @Override
    public final void cancelled(long waitedNanos, Priority priority) {
        cancelled(waitedNanos, priority, null);
    }

    @Override
    public final void cancelled(long waitedNanos, Priority priority, Object callerContext) {
        priorities.cancelled(priority);
        recordWait(Wait.CANCELLED, waitedNanos);
        calls.cancelled();
        if (observesWaits) {
            observe(CallTally.CANCELLED, null, waitedNanos, callerContext);
        }
    }

    @Override
    public final void released(long executionNanos) {
        recordRelease(executionNanos);
    }

    @Override
    public final void released(long executionNanos, long endedAt) {
        if (executionNanos != UNTIMED) {
            // Weighed as the calls it stands for: one in mask + 1 is timed.
            recordSampledRelease(executionNanos, sampler.mask() + 1L);
            sampler.timed(endedAt);
        }
    }

    /** A refusal's wait to nanoseconds, saturating (such durations are never negative). */
    private static long nanos(Duration duration) {
        try {
            return duration.toNanos();
        } catch (ArithmeticException overflow) {
            return Long.MAX_VALUE;
        }
    }
}
