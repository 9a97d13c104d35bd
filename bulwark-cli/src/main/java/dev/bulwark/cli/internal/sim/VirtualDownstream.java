package dev.bulwark.cli.internal.sim;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import org.HdrHistogram.Histogram;

/**
 * The simulated downstream in virtual time: the same {@link ProcessorSharingModel} as {@link SimulatedDownstream},
 * but nothing runs by itself. The event loop asks when the next call ends ({@link #nextFinishAt()}) and, once the
 * clock is there, has the calls due then completed ({@link #finishDue()}) on its own thread. Completing a call
 * may start queued calls at once (the bulkhead grants the freed slot inside the completion), which re-enter
 * {@link #call(long)}: the due calls are taken out of the model before any is completed, so that is safe.
 * Single-threaded, like the whole virtual-time run.
 */
final class VirtualDownstream implements Downstream {

    private final VirtualClock clock;
    private final ProcessorSharingModel<CompletableFuture<Void>> model;
    private final List<ProcessorSharingModel.Job<CompletableFuture<Void>>> due = new ArrayList<>();
    private final Histogram residenceMicros = new Histogram(3);
    private boolean aborted;
    private long completed;
    private long completedNanos;
    private long aborts;

    VirtualDownstream(int capacity, double degradation, double contention, VirtualClock clock) {
        this.clock = clock;
        this.model = new ProcessorSharingModel<>(capacity, degradation, contention, clock.read());
    }

    @Override
    public CompletableFuture<Void> call(long workNanos) {
        CompletableFuture<Void> future = new CompletableFuture<>();
        if (aborted) {
            future.completeExceptionally(runEnded());
        } else {
            model.start(clock.read(), workNanos, future);
        }
        return future;
    }

    /**
     * Returns when the next call ends, if no call starts or ends before.
     *
     * @return a time after now, or {@link Long#MAX_VALUE} when nothing is in flight
     */
    long nextFinishAt() {
        long in = model.nanosUntilNextFinish();
        // At least a nanosecond on: a call that ends "now" is finished by the event at now + 1, never in a loop.
        return in == Long.MAX_VALUE ? Long.MAX_VALUE : clock.read() + Math.max(1L, in);
    }

    /**
     * Changes the speed of every call in flight from now on ({@link ProcessorSharingModel#changeSpeed}): the event
     * loop asks {@link #nextFinishAt()} again after it, so the next completion moves with the speed.
     *
     * @param factor the fraction of the normal speed, from 0 (paused) to 1
     */
    void changeSpeed(double factor) {
        model.changeSpeed(clock.read(), factor);
    }

    /** Completes every call whose work is done by the clock's time. */
    void finishDue() {
        long now = clock.read();
        due.clear();
        model.finishDue(now, due);
        List<ProcessorSharingModel.Job<CompletableFuture<Void>>> done = new ArrayList<>(due);
        for (ProcessorSharingModel.Job<CompletableFuture<Void>> job : done) {
            long residence = now - job.startedAt();
            completed++;
            completedNanos += residence;
            residenceMicros.recordValue(Math.max(0L, residence / 1_000L));
            job.payload().complete(null);
        }
    }

    @Override
    public int inFlight() {
        return model.inFlight();
    }

    @Override
    public void abortAll() {
        aborted = true;
        List<ProcessorSharingModel.Job<CompletableFuture<Void>>> removed = new ArrayList<>();
        model.removeAll(clock.read(), removed);
        aborts += removed.size();
        for (ProcessorSharingModel.Job<CompletableFuture<Void>> job : removed) {
            job.payload().completeExceptionally(runEnded());
        }
    }

    private static CancellationException runEnded() {
        return new CancellationException("the simulation ended before the downstream finished the call");
    }

    @Override
    public DownstreamStatistics takeStatistics() {
        model.advanceTo(clock.read());
        // No thread to wake late: completions happen exactly when due.
        return new DownstreamStatistics(model.peakInFlight(), model.inFlightIntegral(), completed, completedNanos,
                aborts, residenceMicros.copy(), 0L);
    }

    @Override
    public void close() {
        // Holds no thread.
    }
}
