package dev.bulwark.micrometer.internal;

import dev.bulwark.Bulkhead;
import dev.bulwark.internal.stats.TimerStatistics;
import java.lang.ref.WeakReference;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/**
 * What the execution function timer reads: the exact count of executions and their estimated total time.
 *
 * <h2>Design notes</h2>
 *
 * <p>An in-process bulkhead does not report a release it did not time (see
 * {@code SampledListener.releasesSampled()}), so that a call outside the sample costs a bound bulkhead one
 * increment (its admission) instead of two. The count of finished executions is then derived when scraped:
 * {@code admissions - executing}, every call admitted since binding that no longer holds its slot. Admissions are
 * read <em>before</em> the bulkhead's executing count, so a call admitted in between is subtracted without being
 * added, and the result never exceeds the true count; calls that were already running when the binding was made
 * are subtracted until they end. Both only ever make it too low for a moment, so the reported count is the
 * maximum of every value derived so far: monotonic (as a timer's count must be), never above the true count, and
 * exact whenever the bulkhead is quiet. Releases reported one by one (by bulkheads that time every call, such as a
 * cluster-wide one) are counted in the statistics and added.
 *
 * <p>Thread-safe: the scrape-side state is one {@link AtomicLong}. The bulkhead is held weakly.
 */
final class ExecutionSource {

    private final WeakReference<Bulkhead> bulkhead;
    private final LongSupplier admissions;
    private final TimerStatistics execution;
    /** Set once, when an in-process bulkhead says it reports only timed releases. */
    private volatile boolean releasesSampled;
    /** The largest count reported so far. */
    private final AtomicLong reported = new AtomicLong();

    ExecutionSource(Bulkhead bulkhead, LongSupplier admissions, TimerStatistics execution) {
        this.bulkhead = new WeakReference<>(bulkhead);
        this.admissions = admissions;
        this.execution = execution;
    }

    void releasesSampled() {
        if (!releasesSampled) {
            releasesSampled = true;
        }
    }

    /** The number of executions that ended since binding. */
    long count() {
        long counted = execution.count();
        if (!releasesSampled) {
            return counted;
        }
        long derived = 0L;
        long admitted = admissions.getAsLong(); // first: see the design notes
        Bulkhead source = bulkhead.get();
        if (source != null) {
            derived = Math.max(0L, admitted - source.executingCount());
        }
        long candidate = counted + derived;
        return reported.accumulateAndGet(candidate, Math::max);
    }

    /** The estimated total time of those executions (exact when every one was timed). */
    double totalNanos() {
        return execution.totalNanos(count());
    }
}
