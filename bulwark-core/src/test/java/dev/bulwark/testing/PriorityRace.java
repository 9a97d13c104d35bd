package dev.bulwark.testing;

import dev.bulwark.Bulkhead;
import dev.bulwark.CallOptions;
import dev.bulwark.Priority;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.function.DoubleSupplier;

/**
 * Races threads through a bulkhead, half of their calls at {@link Priority#NORMAL} and half at
 * {@link Priority#HIGH}, interleaved (HIGH admissions are what a derived NORMAL count subtracts), and takes a
 * reading over and over while they run: what the metrics bindings' "never down, never above the truth" tests
 * check their derived counts with.
 */
public final class PriorityRace {

    private PriorityRace() {
    }

    /**
     * Starts {@code threads} callers of {@code perThread} calls each at once, reads {@code reading} until every
     * caller has ended (at least once), and waits for them.
     *
     * @return the readings, in the order taken
     */
    public static List<Double> readWhileCalling(Bulkhead bulkhead, int threads, int perThread, DoubleSupplier reading)
            throws InterruptedException {
        CountDownLatch start = new CountDownLatch(1);
        List<Thread> callers = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            Thread caller = new Thread(() -> {
                try {
                    start.await();
                } catch (InterruptedException interrupted) {
                    return;
                }
                for (int i = 0; i < perThread; i++) {
                    if ((i & 1) == 0) {
                        bulkhead.call(() -> null);
                    } else {
                        bulkhead.call(CallOptions.priority(Priority.HIGH), () -> null);
                    }
                }
            });
            caller.start();
            callers.add(caller);
        }
        List<Double> readings = new ArrayList<>();
        start.countDown();
        boolean running = true;
        while (running) {
            running = callers.stream().anyMatch(Thread::isAlive);
            readings.add(reading.getAsDouble());
        }
        for (Thread caller : callers) {
            caller.join();
        }
        return readings;
    }
}
