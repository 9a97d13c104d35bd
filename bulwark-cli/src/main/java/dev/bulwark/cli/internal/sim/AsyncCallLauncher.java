package dev.bulwark.cli.internal.sim;

import dev.bulwark.Bulkhead;
import dev.bulwark.CancellationSignal;
import dev.bulwark.Policy;
import dev.bulwark.Priority;
import java.util.concurrent.CompletableFuture;

/**
 * Runs each call with {@link Policy#callAsync} (the bulkhead's own, or a pipeline's with the retry and the
 * timeout around it): a queued call is a queue entry and a call in flight is a future the downstream's scheduler
 * completes, so no thread is held per call.
 */
final class AsyncCallLauncher implements CallLauncher {

    private final Policy policy;
    private final CallClasses classes;
    private final Bulkhead bulkhead;
    private final Downstream downstream;
    private final CancellationSignal endOfRun;
    private final RunMeasurements measurements;

    /**
     * @param policy the policies each call goes through, or {@code null} to call the downstream directly
     * @param classes gives each call its priority and weight and the policy bound to them, or {@code null} to make
     *     every call through {@code policy} without options
     * @param bulkhead the bulkhead among them, whose queue is watched, or {@code null}
     * @param endOfRun cancelled when the run ends, to take every queued call out of the queue
     */
    AsyncCallLauncher(Policy policy, CallClasses classes, Bulkhead bulkhead, Downstream downstream,
                      CancellationSignal endOfRun, RunMeasurements measurements) {
        this.policy = policy;
        this.classes = classes;
        this.bulkhead = bulkhead;
        this.downstream = downstream;
        this.endOfRun = endOfRun;
        this.measurements = measurements;
    }

    @Override
    public void launch(long arrivalNanos, long workNanos, int lane, Priority priority, Runnable afterOutcome) {
        measurements.arrived();
        CallClasses.Call kind = classes == null ? null : classes.next(priority);
        Policy through = kind == null ? policy : kind.policy();
        CompletableFuture<Void> call;
        try {
            call = through == null ? downstream.call(workNanos)
                    : through.callAsync(() -> downstream.call(workNanos), endOfRun);
        } catch (RuntimeException | Error unexpected) {
            call = CompletableFuture.failedFuture(unexpected);
        }
        call.whenComplete((ignored, failure) -> {
            measurements.finished(failure, arrivalNanos, kind, lane);
            if (afterOutcome != null) {
                afterOutcome.run();
            }
        });
        if (bulkhead != null) {
            // The queue grows only when a call arrives, so reading it here catches its peaks.
            measurements.observeQueued(bulkhead.queuedCount());
        }
    }

    @Override
    public String describe() {
        return "callAsync";
    }

    @Override
    public void close() {
        // Holds no threads.
    }
}
