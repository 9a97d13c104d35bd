package dev.bulwark.cli.internal.sim;

import dev.bulwark.Scheduler;
import dev.bulwark.Ticker;
import java.util.SplittableRandom;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;

/**
 * One closed-loop client: thinks, makes a call, and once the call's outcome is known (served, refused or cancelled)
 * thinks again, until the run's end. The same in real time (the run's ticker and a scheduler thread) and in virtual
 * time (the virtual clock is both). It draws its think times and service times from generators of its own, so the
 * seed fixes its sequence (the interleaving of clients in real time is not fixed).
 *
 * <p>Not thread-safe, and needs not be: its steps run one at a time, each handing over to the next (the scheduler
 * runs the call, the call's outcome starts the next think), so its generators are never used by two threads at once.
 */
final class ClosedLoopClient {

    private final Ticker ticker;
    private final Scheduler scheduler;
    private final Distribution thinkTime;
    private final Distribution serviceTime;
    private final SplittableRandom thinks;
    private final SplittableRandom services;
    private final long endNanos;
    private final CallLauncher launcher;

    /**
     * @param ticker the run's clock
     * @param scheduler runs each call after its think time
     * @param thinkTime the pause before each call
     * @param serviceTime each call's work
     * @param thinks the generator of the think times
     * @param services the generator of the service times
     * @param endNanos no call at or after this ticker reading
     * @param launcher makes the calls
     */
    ClosedLoopClient(Ticker ticker, Scheduler scheduler, Distribution thinkTime, Distribution serviceTime,
                     SplittableRandom thinks, SplittableRandom services, long endNanos, CallLauncher launcher) {
        this.ticker = ticker;
        this.scheduler = scheduler;
        this.thinkTime = thinkTime;
        this.serviceTime = serviceTime;
        this.thinks = thinks;
        this.services = services;
        this.endNanos = endNanos;
        this.launcher = launcher;
    }

    /** Thinks, then calls, unless the call would come at or after the end. */
    void thinkThenCall() {
        long think = thinkTime.sampleNanos(thinks);
        if (ticker.read() + think >= endNanos) {
            return;
        }
        try {
            scheduler.schedule(this::call, think, TimeUnit.NANOSECONDS);
        } catch (RejectedExecutionException runOver) {
            // The run has ended and its scheduler with it: this client stops.
        }
    }

    private void call() {
        long now = ticker.read();
        if (now >= endNanos) {
            return;
        }
        launcher.launch(now, serviceTime.sampleNanos(services), this::thinkThenCall);
    }
}
