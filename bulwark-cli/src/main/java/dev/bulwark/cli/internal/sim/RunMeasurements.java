package dev.bulwark.cli.internal.sim;

import dev.bulwark.Ticker;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.AtomicReference;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;

/**
 * The per-call bookkeeping of one run: arrivals, outcomes, end-to-end latencies and queue waits. Thread-safe and
 * wait-free on the recording side (atomics and HdrHistogram {@link Recorder}s), because calls end on the downstream's
 * scheduler thread, the common pool (a bulkhead's wait timeouts) and, in thread mode, on a thread per call.
 */
public final class RunMeasurements {

    private final Ticker ticker;
    private final CallObserver observer;
    private final long startNanos;
    private final AtomicLong arrivals = new AtomicLong();
    private final AtomicLong finished = new AtomicLong();
    private final AtomicLongArray outcomes = new AtomicLongArray(CallOutcome.values().length);
    private final AtomicInteger peakQueued = new AtomicInteger();
    private final AtomicReference<Throwable> firstUnexpectedFailure = new AtomicReference<>();
    private final Recorder endToEndMicros = new Recorder(3);
    private final Recorder queueWaitMicros = new Recorder(3);
    private final Recorder arrivalLagMicros = new Recorder(3);

    /**
     * Creates empty measurements.
     *
     * @param ticker the clock that arrival times are read from
     */
    public RunMeasurements(Ticker ticker) {
        this(ticker, CallObserver.NONE);
    }

    /**
     * Creates empty measurements that also tell an observer of every call's end.
     *
     * @param ticker the clock that arrival times are read from; its reading now is the run's start for the observer
     * @param observer told of each call as it ends, on the thread that ends it
     */
    public RunMeasurements(Ticker ticker, CallObserver observer) {
        this.ticker = ticker;
        this.observer = Objects.requireNonNull(observer, "observer");
        this.startNanos = ticker.read();
    }

    /** Counts an arrival: a call about to be made. */
    public void arrived() {
        arrivals.incrementAndGet();
    }

    /**
     * Counts a call's end and, when it completed, records its latency from its (intended) arrival time.
     *
     * @param failure the call's exception, or {@code null} when it completed
     * @param arrivalNanos when the call was due to arrive, on the ticker's clock; measuring from the intended
     *     time rather than the moment the arrival thread got round to it keeps a late arrival thread from hiding
     *     latency (coordinated omission)
     * @param kind the call's class, whose own counts are updated too, or {@code null} when calls have no class
     * @param lane the call's lane in the run's schedule (0 without one), told to the {@link CallObserver}
     * @return the outcome
     */
    CallOutcome finished(Throwable failure, long arrivalNanos, CallClasses.Call kind, int lane) {
        CallOutcome outcome = CallOutcome.of(failure);
        if (kind != null) {
            // Before the call counts as ended: the run's end waits for every call to have ended and then reads the
            // classes' counts, so a class counted after it could miss a call ended on another thread.
            kind.finished(outcome, arrivalNanos);
        }
        long latencyNanos = Math.max(0L, ticker.read() - arrivalNanos);
        if (outcome == CallOutcome.COMPLETED) {
            endToEndMicros.recordValue(latencyNanos / 1_000L);
        } else if (outcome == CallOutcome.FAILED) {
            firstUnexpectedFailure.compareAndSet(null, failure);
        }
        outcomes.incrementAndGet(outcome.ordinal());
        observer.ended(lane, arrivalNanos - startNanos, outcome, latencyNanos);
        finished.incrementAndGet();
        return outcome;
    }

    /**
     * Records how late the arrival thread made a call (on a busy machine it falls behind and catches up).
     *
     * @param lateNanos the time from the call's due time to the moment it was made
     */
    public void arrivalLate(long lateNanos) {
        arrivalLagMicros.recordValue(Math.max(0L, lateNanos / 1_000L));
    }

    /**
     * Returns how late arrivals were made, and resets the record. Call once, at the end.
     *
     * @return microseconds
     */
    Histogram takeArrivalLag() {
        return arrivalLagMicros.getIntervalHistogram();
    }

    /**
     * Records how long an admitted call waited in the bulkhead's queue.
     *
     * @param waitedNanos the wait, zero when a slot was free at once
     */
    public void queueWaited(long waitedNanos) {
        queueWaitMicros.recordValue(Math.max(0L, waitedNanos / 1_000L));
    }

    /**
     * Notes a reading of the bulkhead's queue length, keeping the largest.
     *
     * @param queued the number of waiting calls seen
     */
    public void observeQueued(int queued) {
        int peak = peakQueued.get();
        while (queued > peak && !peakQueued.compareAndSet(peak, queued)) {
            peak = peakQueued.get();
        }
    }

    /**
     * Returns the number of calls that arrived and have not ended yet.
     *
     * @return at least 0 once the arrivals have stopped
     */
    public long outstanding() {
        long done = finished.get();
        return arrivals.get() - done;
    }

    /**
     * Returns the counts so far.
     *
     * @return a snapshot; counts may be mid-update relative to each other while calls are ending
     */
    public OutcomeCounts counts() {
        long[] values = new long[CallOutcome.values().length];
        for (int i = 0; i < values.length; i++) {
            values[i] = outcomes.get(i);
        }
        return new OutcomeCounts(arrivals.get(), values);
    }

    /**
     * Returns the largest queue length seen.
     *
     * @return at least 0
     */
    public int peakQueued() {
        return peakQueued.get();
    }

    /**
     * Returns the first exception of an unexpected kind that ended a call.
     *
     * @return the exception, or empty when every call ended as expected
     */
    public Optional<Throwable> firstUnexpectedFailure() {
        return Optional.ofNullable(firstUnexpectedFailure.get());
    }

    /**
     * Adds the end-to-end latencies recorded since the last call to {@code into}. Call from one thread at a time.
     *
     * @param into the histogram to add to
     */
    void drainEndToEnd(Histogram into) {
        into.add(endToEndMicros.getIntervalHistogram());
    }

    /**
     * Adds the queue waits recorded since the last call to {@code into}. Call from one thread at a time.
     *
     * @param into the histogram to add to
     */
    void drainQueueWait(Histogram into) {
        into.add(queueWaitMicros.getIntervalHistogram());
    }
}
