package dev.bulwark.cli.internal.sim;

import dev.bulwark.Ticker;
import java.util.SplittableRandom;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Closed-loop clients: each one thinks, makes a call, waits for its outcome (served, refused or cancelled), and
 * thinks again. Thinking is a task on one scheduler thread ({@code bulwark-sim-clients}), so clients hold no
 * thread while they wait. Each client draws its think times and service times from its own generator split
 * from the run's seed, so each client's sequence is fixed by the seed (the interleaving is not).
 */
final class ClosedLoopClients implements ArrivalProcess {

    private final int clients;
    private final Distribution thinkTime;
    private final Distribution serviceTime;
    private final long seed;
    private final Ticker ticker;
    private final ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor(task -> {
        Thread thread = new Thread(task, "bulwark-sim-clients");
        thread.setDaemon(true);
        return thread;
    });

    ClosedLoopClients(int clients, Distribution thinkTime, Distribution serviceTime, long seed, Ticker ticker) {
        this.clients = clients;
        this.thinkTime = thinkTime;
        this.serviceTime = serviceTime;
        this.seed = seed;
        this.ticker = ticker;
    }

    @Override
    public void run(long startNanos, long windowNanos, CallLauncher launcher) {
        long end = startNanos + windowNanos;
        SplittableRandom root = new SplittableRandom(seed);
        for (int i = 0; i < clients; i++) {
            new Client(root.split(), root.split(), end, launcher).thinkThenCall();
        }
        ArrivalProcess.parkUntil(ticker, end);
    }

    @Override
    public void close() {
        scheduler.shutdownNow();
    }

    /** One client's loop. Its generators are used by one step at a time (each step hands over to the next). */
    private final class Client {
        private final SplittableRandom thinks;
        private final SplittableRandom services;
        private final long end;
        private final CallLauncher launcher;

        Client(SplittableRandom thinks, SplittableRandom services, long end, CallLauncher launcher) {
            this.thinks = thinks;
            this.services = services;
            this.end = end;
            this.launcher = launcher;
        }

        void thinkThenCall() {
            long think = thinkTime.sampleNanos(thinks);
            if (ticker.read() + think >= end) {
                return;
            }
            try {
                scheduler.schedule(this::call, think, TimeUnit.NANOSECONDS);
            } catch (RejectedExecutionException runOver) {
                // The run has ended: this client stops.
            }
        }

        void call() {
            long now = ticker.read();
            if (now >= end) {
                return;
            }
            launcher.launch(now, serviceTime.sampleNanos(services), this::thinkThenCall);
        }
    }
}
