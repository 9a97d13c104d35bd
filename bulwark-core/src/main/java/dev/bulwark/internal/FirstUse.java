package dev.bulwark.internal;

import dev.bulwark.Bulkhead;
import dev.bulwark.BulkheadConfig;
import dev.bulwark.BulkheadListener;
import dev.bulwark.BulkheadRejectedException;
import dev.bulwark.CancellationSignal;
import dev.bulwark.PartitionedBulkhead;
import dev.bulwark.Permit;
import dev.bulwark.Scheduler;
import dev.bulwark.Ticker;
import dev.bulwark.Timeout;
import dev.bulwark.internal.bulkhead.FlightRecorderEvents;
import dev.bulwark.internal.spi.FakeTickerWakeUp;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Pays, once per JVM and inside the first bulkhead's construction, what a caller's first refusal or first wait would
 * otherwise pay on its own thread: loading and initialising the classes of the slow paths, linking their lambdas,
 * starting the shared timer's thread and the common pool's first worker, and setting up the Flight Recorder events.
 *
 * <p><b>Why.</b> A service restarting into traffic hits its limits in its first second. Paid by the callers, these
 * costs made the first refusal of a fresh JVM take about 150 ms instead of microseconds and the first queued call
 * overrun its max wait (a 200 ms wait returned after 267 to 515 ms). Paid here, they cost the first {@code build()}
 * of the JVM a few milliseconds more, and every later build nothing (one volatile read).
 *
 * <p><b>How.</b> The first constructing thread (of a bulkhead, a partitioned bulkhead or a timeout) rehearses, on
 * private bulkheads and policies that nobody else sees, each path a caller can take: a free slot, sync and async; a
 * permit; a refusal for a full queue, with and without an overflow handler and a listener; an async waiter granted
 * on release; a cancelled wait; a wait that times out, sync (a parked thread) and async (on the timer wheel); a
 * drain; a per-key call, a new key evicting an idle partition and a partition-limit refusal; a timeout, sync and
 * async. Only then are the Flight Recorder events set up
 * ({@link FlightRecorderEvents#prepare()}), so a running recording sees none of the rehearsal. Other threads that
 * construct a bulkhead meanwhile wait for the rehearsal to end (at most {@link #MAX_WAIT_SECONDS} seconds), so that
 * no bulkhead is handed out before the rehearsal is done; the rehearsal's own constructions, on the rehearsing
 * thread, pass straight through. A rehearsal that fails is logged at DEBUG and changes nothing else: the callers
 * then pay the costs themselves, as before.
 *
 * <p><b>Turning it off.</b> With the system property {@value #SWITCH} set to {@code false} the first build skips the
 * rehearsal (the Flight Recorder set-up still happens off the caller's thread): a program that builds bulkheads but
 * rarely calls them at start-up saves the build time, and its first callers pay instead.
 *
 * <p>No static initialiser here waits on another class: the state is an atomic reference and a latch, and the
 * rehearsal runs in a method called from a constructor, never in a class initialiser.
 */
public final class FirstUse {

    /**
     * The name of the rehearsal's partitioned bulkhead, whose rehearsed {@code PARTITION_LIMIT} refusal is not
     * logged: a user must not see a warning about a flood at every start.
     */
    public static final String PER_KEY_REHEARSAL = "bulwark-rehearsal-per-key";

    /**
     * The logger, looked up when first needed: finding the logging back end costs milliseconds (a service look-up)
     * that neither {@code build()} nor a caller's first call should pay for a failure that may never come.
     */
    private static final class Log {
        static final System.Logger LOGGER = System.getLogger("dev.bulwark");

        private Log() {
        }
    }

    /** The system property that turns the rehearsal off when {@code false}. */
    static final String SWITCH = "dev.bulwark.rehearseFirstUse";

    /** Bounds how long another constructing thread waits for the rehearsal: it never takes close to that. */
    static final long MAX_WAIT_SECONDS = 10;

    /** The thread that rehearses: set once, from {@code null}; the latch opens when it is done. */
    private static final AtomicReference<Thread> REHEARSER = new AtomicReference<>();
    private static final CountDownLatch REHEARSED = new CountDownLatch(1);
    private static volatile boolean done;

    private FirstUse() {
    }

    /**
     * Rehearses once per JVM; see the class documentation. Cheap once done (one volatile read). Never throws; keeps
     * the caller's interrupt status.
     */
    public static void prepare() {
        if (done) {
            return;
        }
        Thread current = Thread.currentThread();
        if (REHEARSER.compareAndSet(null, current)) {
            // An interrupted builder would see its rehearsed waits end at once; the flag is its own, given back after.
            boolean interrupted = Thread.interrupted();
            try {
                if (!"false".equalsIgnoreCase(System.getProperty(SWITCH))) {
                    rehearse();
                }
            } catch (RuntimeException failure) {
                Log.LOGGER.log(System.Logger.Level.DEBUG, "Bulwark's first-use rehearsal failed; first calls pay it",
                        failure);
            } finally {
                if (interrupted) {
                    current.interrupt();
                }
                FlightRecorderEvents.prepare();
                done = true;
                REHEARSED.countDown();
            }
        } else if (REHEARSER.get() != current) {
            awaitRehearsal();
        }
    }

    private static void awaitRehearsal() {
        boolean interrupted = false;
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(MAX_WAIT_SECONDS);
        while (!done) {
            long remaining = deadline - System.nanoTime();
            if (remaining <= 0) {
                break;
            }
            try {
                REHEARSED.await(remaining, TimeUnit.NANOSECONDS);
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    private static void rehearse() {
        Rehearsal.run(Bulkhead.builder().name("bulwark-rehearsal").maxConcurrency(1).maxQueue(1)
                .maxWait(Duration.ofMinutes(1)).build());
        Rehearsal.run(Bulkhead.builder().name("bulwark-rehearsal-observed").maxConcurrency(1).maxQueue(1)
                .maxWait(Duration.ofMinutes(1)).onRejected(rejection -> { })
                .listener(new BulkheadListener() { }).build());
        Rehearsal.perKey(PartitionedBulkhead.<String>builder().name(PER_KEY_REHEARSAL).maxPartitions(1)
                .build());
        Rehearsal.timeout(Timeout.of(Duration.ofMinutes(1)));
        // The rehearsed waits end before they park with a bound, so the wake-up a bounded park arms under a fake
        // ticker is loaded here (under the system ticker it arms nothing), not by a caller's first bounded wait.
        FakeTickerWakeUp.rearm(Ticker.system(), Scheduler.shared(), Thread.currentThread(), null, 1);
    }

    /** The steps of one rehearsal, on one private bulkhead of limit 1 and queue 1. */
    private static final class Rehearsal {

        private Rehearsal() {
        }

        static void run(Bulkhead bulkhead) {
            bulkhead.call(() -> null);
            bulkhead.callAsync(() -> CompletableFuture.completedFuture(null)).join();

            // A waiter granted on release, and a refusal for a full queue behind it.
            Permit held = bulkhead.acquire();
            CompletableFuture<Object> queued = bulkhead.callAsync(() -> CompletableFuture.completedFuture(null));
            refused(() -> bulkhead.call(() -> null));
            refused(() -> bulkhead.callAsync(() -> CompletableFuture.completedFuture(null)).join());
            held.close();
            queued.join();

            // A wait cancelled by its future, and one cancelled by its signal.
            held = bulkhead.acquire();
            bulkhead.acquireAsync().cancel(false);
            CancellationSignal signal = CancellationSignal.create();
            CompletableFuture<Permit> signalled = bulkhead.acquireAsync(signal);
            signal.cancel();
            ignored(signalled);

            // Waits that time out: a parked thread, and an async waiter on the shared timer wheel.
            bulkhead.changeMaxWait(Duration.ofNanos(1));
            refused(() -> bulkhead.call(() -> null));
            refused(() -> bulkhead.callAsync(() -> CompletableFuture.completedFuture(null)).join());
            held.close();

            bulkhead.drain(Duration.ZERO);
            refused(() -> bulkhead.call(() -> null));
        }

        static void perKey(PartitionedBulkhead<String> perKey) {
            perKey.call("a", () -> null);
            perKey.callAsync("b", () -> CompletableFuture.completedFuture(null)).join(); // evicts idle "a"
            CompletableFuture<Object> running = new CompletableFuture<>();
            CompletableFuture<Object> busy = perKey.callAsync("b", () -> running);
            refused(() -> perKey.call("c", () -> null)); // the one partition is in use: PARTITION_LIMIT
            running.complete(null);
            busy.join();
            perKey.drain(Duration.ZERO);
        }

        static void timeout(Timeout timeout) {
            timeout.call(() -> null);
            timeout.callAsync(() -> CompletableFuture.completedFuture(null)).join();
        }

        private static void refused(Runnable call) {
            try {
                call.run();
            } catch (BulkheadRejectedException | CompletionException expected) {
                // The rehearsed refusal.
            }
        }

        private static void ignored(CompletableFuture<?> future) {
            try {
                future.join();
            } catch (RuntimeException expected) {
                // Cancelled, as rehearsed.
            }
        }
    }
}
