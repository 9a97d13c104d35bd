package dev.bulwark;

import dev.bulwark.testing.FreshJvm;
import dev.bulwark.testing.FreshJvmRace;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * A fresh JVM's first calls, raced: the child program of {@link FirstUseRaceTest}. It builds one bulkhead (or
 * policy) per entry point, puts each where that entry point takes its slow path, then releases every thread at once
 * on one latch, so that the first refusal with an overflow handler, the first without one, the first wait timeout,
 * cancellation, drain, async grant, listener event, per-key call and policy all run, and load their classes, at the
 * same moment. Exit code 0 when every thread finished; {@link FreshJvm#HUNG} with a thread dump when any did not.
 *
 * <p>Argument {@code refusals}: only the two refusals (four threads each), the reproducer of the class-initialisation
 * deadlock between {@code BulkheadRejectedException} and its access class found in issue 37.
 */
public final class FirstUseRace {

    private FirstUseRace() {
    }

    /**
     * Runs the race.
     *
     * @param args {@code all} or {@code refusals}
     * @throws Exception never expected
     */
    public static void main(String[] args) throws Exception {
        FreshJvm.watchdog(Duration.ofSeconds(20));
        List<Runnable> entryPoints = args.length > 0 && args[0].equals("refusals") ? refusals() : everyEntryPoint();
        FreshJvmRace.race(entryPoints, Duration.ofSeconds(15));
        System.exit(0);
    }

    /** Two full bulkheads, one with an overflow handler and one without; four callers each. */
    private static List<Runnable> refusals() {
        Bulkhead withHandler = Bulkhead.builder().name("handled").maxConcurrency(1).maxQueue(0)
                .onRejected(rejection -> { }).build();
        Bulkhead plain = Bulkhead.builder().name("plain").maxConcurrency(1).maxQueue(0).build();
        withHandler.tryAcquire().orElseThrow();
        plain.tryAcquire().orElseThrow();
        List<Runnable> callers = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            callers.add(() -> refused(withHandler));
            callers.add(() -> refused(plain));
        }
        return callers;
    }

    private static List<Runnable> everyEntryPoint() {
        List<Runnable> callers = new ArrayList<>(refusals());

        Bulkhead timing = Bulkhead.builder().name("timing").maxConcurrency(1).maxQueue(4)
                .maxWait(Duration.ofMillis(5)).build();
        timing.tryAcquire().orElseThrow();
        callers.add(() -> refused(timing));
        callers.add(() -> expectFailure(timing.callAsync(() -> CompletableFuture.completedFuture(1))));

        Bulkhead cancelling = Bulkhead.builder().name("cancelling").maxConcurrency(1).maxQueue(4).build();
        cancelling.tryAcquire().orElseThrow();
        callers.add(() -> cancelling.acquireAsync().cancel(false));
        callers.add(() -> {
            CancellationSignal signal = CancellationSignal.create();
            CompletableFuture<Permit> waiting = cancelling.acquireAsync(signal);
            signal.cancel();
            expectFailure(waiting);
        });

        Bulkhead draining = Bulkhead.builder().name("draining").maxConcurrency(2).maxQueue(2).build();
        callers.add(() -> {
            draining.drain(Duration.ZERO);
            refused(draining);
        });

        Bulkhead granting = Bulkhead.builder().name("granting").maxConcurrency(1).maxQueue(2).build();
        Permit grantingHeld = granting.tryAcquire().orElseThrow();
        callers.add(() -> {
            CompletableFuture<Integer> queued = granting.callAsync(() -> CompletableFuture.completedFuture(1));
            grantingHeld.close();
            queued.join();
        });

        Bulkhead listened = Bulkhead.builder().name("listened").maxConcurrency(1).maxQueue(0)
                .listener(new BulkheadListener() { }).build();
        callers.add(() -> listened.call(() -> 1));

        PartitionedBulkhead<String> perKey = PartitionedBulkhead.<String>builder().name("per-key")
                .defaultConfig(Bulkhead.builder().maxConcurrency(1).maxQueue(0).config()).build();
        callers.add(() -> perKey.call("tenant", () -> 1));

        Policy pipeline = Pipeline.of(Retry.builder().maxRetries(1).build(), Timeout.of(Duration.ofSeconds(5)));
        callers.add(() -> pipeline.call(() -> 1));

        Bulkhead messages = Bulkhead.builder().name("messages").maxConcurrency(1).maxQueue(0).build();
        messages.tryAcquire().orElseThrow();
        callers.add(() -> {
            try {
                messages.call(() -> 1);
                throw new AssertionError("not refused");
            } catch (BulkheadRejectedException expected) {
                if (!expected.getMessage().contains("QUEUE_FULL")) {
                    throw new AssertionError(expected.getMessage());
                }
            }
        });
        return callers;
    }

    private static void refused(Bulkhead bulkhead) {
        try {
            bulkhead.call(() -> 1);
            throw new AssertionError("not refused by " + bulkhead.name());
        } catch (BulkheadRejectedException expected) {
            expected.rejection();
        }
    }

    private static void expectFailure(CompletableFuture<?> future) {
        try {
            future.join();
            throw new AssertionError("completed normally");
        } catch (CompletionException | java.util.concurrent.CancellationException expected) {
            // The refusal or the cancellation this entry point takes.
        }
    }
}
