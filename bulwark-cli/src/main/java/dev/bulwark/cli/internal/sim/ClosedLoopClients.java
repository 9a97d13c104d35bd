package dev.bulwark.cli.internal.sim;

import dev.bulwark.Scheduler;
import dev.bulwark.Ticker;
import java.util.SplittableRandom;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;

/**
 * Closed-loop clients in real time ({@link ClosedLoopClient}s): each one thinks, makes a call, waits for its outcome
 * (served, refused or cancelled), and thinks again. Thinking is a task on one scheduler thread
 * ({@code bulwark-sim-clients}), so clients hold no thread while they wait. Each client draws its think times and
 * service times from its own generators split from the run's seed, so each client's sequence is fixed by the seed
 * (the interleaving is not).
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
    private final Scheduler clientScheduler = Scheduler.of(scheduler);

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
            new ClosedLoopClient(ticker, clientScheduler, thinkTime, serviceTime, root.split(), root.split(), end,
                    launcher).thinkThenCall();
        }
        ArrivalProcess.parkUntil(ticker, end);
    }

    @Override
    public void close() {
        scheduler.shutdownNow();
    }
}
