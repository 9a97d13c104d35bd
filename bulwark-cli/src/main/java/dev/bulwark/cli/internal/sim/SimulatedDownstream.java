package dev.bulwark.cli.internal.sim;

import dev.bulwark.Ticker;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;
import org.HdrHistogram.Recorder;

/**
 * A downstream (a database, a service) simulated in real time by {@link ProcessorSharingModel}: a call is a
 * future that one scheduler thread completes when the call's work is done. No thread is held per call, so the
 * number of calls in flight is bounded only by memory.
 *
 * <p>Thread-safe. {@link #call(long)} may be invoked from any thread, including the scheduler thread itself
 * (a bulkhead starts the next queued call on the thread that completes the previous one). Futures are always
 * completed outside the lock.
 */
public final class SimulatedDownstream implements Downstream {

    private final Ticker ticker;
    private final ReentrantLock lock = new ReentrantLock();
    // Guarded by lock.
    private final ProcessorSharingModel<CompletableFuture<Void>> model;
    private boolean aborted;
    /** When the scheduler thread will next look at the model unless woken; guarded by lock. */
    private long wakeAt = Long.MAX_VALUE;

    private volatile int inFlight;
    private volatile boolean closed;
    private final Thread scheduler;

    private final AtomicLong completed = new AtomicLong();
    private final AtomicLong completedNanos = new AtomicLong();
    private final AtomicLong aborts = new AtomicLong();
    private final AtomicLong latestCompletionNanos = new AtomicLong();
    /** Time in the downstream of completed calls, in microseconds. */
    private final Recorder residenceMicros = new Recorder(3);

    /**
     * Creates the downstream and starts its scheduler thread ({@code bulwark-sim-downstream}, a daemon).
     *
     * @param capacity how many calls run at full speed at once
     * @param degradation how steeply throughput falls beyond capacity
     * @param ticker the clock
     * @throws IllegalArgumentException when {@code capacity} or {@code degradation} is out of range
     */
    public SimulatedDownstream(int capacity, double degradation, Ticker ticker) {
        this(capacity, degradation, 0, ticker);
    }

    /**
     * Creates the downstream and starts its scheduler thread ({@code bulwark-sim-downstream}, a daemon).
     *
     * @param capacity how many calls progress without thrashing at once
     * @param degradation how steeply throughput falls beyond capacity
     * @param contention the serial fraction that slows every call when several progress ({@link ProcessorSharingModel})
     * @param ticker the clock
     * @throws IllegalArgumentException when {@code capacity}, {@code degradation} or {@code contention} is out of
     *     range
     */
    public SimulatedDownstream(int capacity, double degradation, double contention, Ticker ticker) {
        this.ticker = ticker;
        this.model = new ProcessorSharingModel<>(capacity, degradation, contention, ticker.read());
        this.scheduler = new Thread(this::completeCallsAsTheirWorkEnds, "bulwark-sim-downstream");
        scheduler.setDaemon(true);
        scheduler.start();
    }

    /**
     * Starts a call that needs {@code workNanos} of service at full speed. Never blocks beyond a short lock.
     *
     * @param workNanos the call's service time on an unloaded downstream
     * @return a future completed (with {@code null}) when the work is done, or exceptionally with a
     *     {@link CancellationException} when the run ends first ({@link #abortAll()})
     */
    public CompletableFuture<Void> call(long workNanos) {
        CompletableFuture<Void> future = new CompletableFuture<>();
        boolean wake;
        lock.lock();
        try {
            if (aborted) {
                future.completeExceptionally(runEnded());
                return future;
            }
            long now = ticker.read();
            long finishesIn = model.start(now, workNanos, future);
            inFlight = model.inFlight();
            long finishesAt = now + finishesIn;
            // A new call slows the others down (their ends move later), so the scheduler is late only if the new
            // call itself ends before the time it already sleeps until.
            wake = finishesAt < wakeAt;
            if (wake) {
                wakeAt = finishesAt;
            }
        } finally {
            lock.unlock();
        }
        if (wake) {
            LockSupport.unpark(scheduler);
        }
        return future;
    }

    /**
     * Ends the run for the downstream: every call in flight fails with a {@link CancellationException}, and so
     * does every later call. Idempotent.
     */
    public void abortAll() {
        List<ProcessorSharingModel.Job<CompletableFuture<Void>>> removed = new ArrayList<>();
        lock.lock();
        try {
            aborted = true;
            model.removeAll(ticker.read(), removed);
            inFlight = 0;
        } finally {
            lock.unlock();
        }
        aborts.addAndGet(removed.size());
        for (ProcessorSharingModel.Job<CompletableFuture<Void>> job : removed) {
            job.payload().completeExceptionally(runEnded());
        }
    }

    private static CancellationException runEnded() {
        return new CancellationException("the simulation ended before the downstream finished the call");
    }

    private void completeCallsAsTheirWorkEnds() {
        List<ProcessorSharingModel.Job<CompletableFuture<Void>>> done = new ArrayList<>();
        long plannedWake = Long.MAX_VALUE;
        while (!closed) {
            long sleep;
            long now;
            lock.lock();
            try {
                now = ticker.read();
                model.finishDue(now, done);
                if (!done.isEmpty() && plannedWake != Long.MAX_VALUE && now - plannedWake > 0) {
                    // Woken later than planned for a completion: the machine is busy (or the timer coarse).
                    long late = now - plannedWake;
                    latestCompletionNanos.accumulateAndGet(late, Math::max);
                }
                inFlight = model.inFlight();
                sleep = done.isEmpty() ? model.nanosUntilNextFinish() : 0L;
                wakeAt = sleep == Long.MAX_VALUE ? Long.MAX_VALUE : now + sleep;
                plannedWake = wakeAt;
            } finally {
                lock.unlock();
            }
            if (!done.isEmpty()) {
                for (ProcessorSharingModel.Job<CompletableFuture<Void>> job : done) {
                    long residence = now - job.startedAt();
                    completed.incrementAndGet();
                    completedNanos.addAndGet(residence);
                    residenceMicros.recordValue(Math.max(0L, residence / 1_000L));
                    // Completing may start queued calls on this thread (they re-enter call(); the lock is free).
                    job.payload().complete(null);
                }
                done.clear();
            } else if (sleep == Long.MAX_VALUE) {
                LockSupport.park(this);
            } else {
                LockSupport.parkNanos(this, sleep);
            }
        }
    }

    /**
     * Returns how many calls are in flight now.
     *
     * @return at least 0
     */
    public int inFlight() {
        return inFlight;
    }

    /**
     * Returns the facts of the run, closing the time integral at the current time. Call once, after the run:
     * the residence histogram is handed over, and a second call would find it empty.
     *
     * @return the statistics
     */
    public DownstreamStatistics takeStatistics() {
        lock.lock();
        try {
            model.advanceTo(ticker.read());
            return new DownstreamStatistics(model.peakInFlight(), model.inFlightIntegral(), completed.get(),
                    completedNanos.get(), aborts.get(), residenceMicros.getIntervalHistogram(),
                    latestCompletionNanos.get());
        } finally {
            lock.unlock();
        }
    }

    /**
     * Stops the scheduler thread. Calls still in flight are left incomplete: call {@link #abortAll()} first.
     */
    @Override
    public void close() {
        closed = true;
        LockSupport.unpark(scheduler);
        try {
            scheduler.join(5_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
