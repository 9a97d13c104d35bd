package dev.bulwark.cli.internal.sim;

import dev.bulwark.Bulkhead;
import dev.bulwark.CancellationSignal;
import dev.bulwark.Policy;
import java.util.concurrent.CompletableFuture;

/**
 * Runs each call with {@link Policy#callAsync} (the bulkhead's own, or a pipeline's with the retry and the
 * timeout around it): a queued call is a queue entry and a call in flight is a future the downstream's scheduler
 * completes, so no thread is held per call.
 */
final class AsyncCallLauncher implements CallLauncher {

    private final Policy policy;
    private final Bulkhead bulkhead;
    private final Downstream downstream;
    private final CancellationSignal endOfRun;
    private final RunMeasurements measurements;

    /**
     * @param policy the policies each call goes through, or {@code null} to call the downstream directly
     * @param bulkhead the bulkhead among them, whose queue is watched, or {@code null}
     * @param endOfRun cancelled when the run ends, to take every queued call out of the queue
     */
    AsyncCallLauncher(Policy policy, Bulkhead bulkhead, Downstream downstream, CancellationSignal endOfRun,
                      RunMeasurements measurements) {
        this.policy = policy;
        this.bulkhead = bulkhead;
        this.downstream = downstream;
        this.endOfRun = endOfRun;
        this.measurements = measurements;
    }

    @Override
    public void launch(long arrivalNanos, long workNanos, Runnable afterOutcome) {
        measurements.arrived();
        CompletableFuture<Void> call;
        try {
            call = policy == null ? downstream.call(workNanos)
                    : policy.callAsync(() -> downstream.call(workNanos), endOfRun);
        } catch (RuntimeException | Error unexpected) {
            call = CompletableFuture.failedFuture(unexpected);
        }
        call.whenComplete((ignored, failure) -> {
            measurements.finished(failure, arrivalNanos);
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
