package dev.bulwark;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicInteger;
import org.jetbrains.lincheck.datastructures.IntGen;
import org.jetbrains.lincheck.datastructures.ModelCheckingOptions;
import org.jetbrains.lincheck.datastructures.Operation;
import org.jetbrains.lincheck.datastructures.Param;
import org.jetbrains.lincheck.datastructures.StressOptions;
import org.jetbrains.lincheck.datastructures.ThreadIdGen;
import org.jetbrains.lincheck.datastructures.Validate;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Lincheck checks that {@link CancellationSignal} is linearizable against a one-shot flag with a first-wins reason,
 * and that a listener registered on it runs at once when the signal is already cancelled. After every run,
 * {@link #listenersRanExactlyOnceUnlessClosedFirst()} checks the listener contract: none runs while the signal is
 * active; once it is cancelled, every listener whose registration was never closed ran exactly once, and none ran
 * twice. Guards the signal side of the cancellation races (.NET #64078, #77180, #90810): a waiter's cancellation
 * listener registered at the same instant as the cancel is neither lost nor run twice.
 */
@Tag("lincheck")
@Param(name = "thread", gen = ThreadIdGen.class)
@Param(name = "reason", gen = IntGen.class, conf = "1:3")
public class CancellationSignalLinearizabilityTest {

    static final int THREADS = 3;
    static final int THREAD_IDS = THREADS + 2;

    private static final class Listener implements Runnable {
        final AtomicInteger runs = new AtomicInteger();
        CancellationSignal.Registration registration;
        volatile boolean closed;

        @Override
        public void run() {
            runs.incrementAndGet();
        }
    }

    private final CancellationSignal signal = CancellationSignal.create();
    private final List<Listener> all = new ArrayList<>();
    @SuppressWarnings("unchecked")
    private final ArrayDeque<Listener>[] open = new ArrayDeque[THREAD_IDS];

    public CancellationSignalLinearizabilityTest() {
        for (int i = 0; i < THREAD_IDS; i++) {
            open[i] = new ArrayDeque<>();
        }
    }

    @Operation
    public boolean cancel() {
        return signal.cancel();
    }

    @Operation
    public boolean cancelWithReason(@Param(name = "reason") int reason) {
        return signal.cancel(new IllegalStateException(String.valueOf(reason)));
    }

    @Operation
    public boolean isCancelled() {
        return signal.isCancelled();
    }

    @Operation
    public String reason() {
        return signal.reason().map(Throwable::getMessage).orElse("none");
    }

    /** Returns whether the listener ran before registration returned (it must, exactly when already cancelled). */
    @Operation
    public boolean register(@Param(name = "thread") int thread) {
        Listener listener = new Listener();
        synchronized (all) {
            all.add(listener);
        }
        listener.registration = signal.onCancel(listener);
        open[thread].addLast(listener);
        return listener.runs.get() == 1;
    }

    @Operation
    public void closeOldest(@Param(name = "thread") int thread) {
        Listener listener = open[thread].pollFirst();
        if (listener != null) {
            listener.closed = true;
            listener.registration.close();
        }
    }

    @Validate
    public void listenersRanExactlyOnceUnlessClosedFirst() {
        boolean cancelled = signal.isCancelled();
        synchronized (all) {
            for (Listener listener : all) {
                int runs = listener.runs.get();
                if (runs > 1) {
                    throw new AssertionError("a listener ran " + runs + " times");
                }
                if (!cancelled && runs != 0) {
                    throw new AssertionError("a listener ran although the signal is active");
                }
                if (cancelled && !listener.closed && runs != 1) {
                    throw new AssertionError("a listener that was never unregistered did not run");
                }
            }
        }
    }

    @Test
    void modelChecking() {
        new ModelCheckingOptions()
                .iterations(Integer.getInteger("bulwark.lincheck.iterations", 8))
                .invocationsPerIteration(Integer.getInteger("bulwark.lincheck.invocations", 100))
                .threads(THREADS).actorsPerThread(2).actorsBefore(1).actorsAfter(1)
                .sequentialSpecification(Specification.class)
                .check(CancellationSignalLinearizabilityTest.class);
    }

    @Test
    void stress() {
        new StressOptions()
                .iterations(Integer.getInteger("bulwark.lincheck.iterations", 8))
                .invocationsPerIteration(Integer.getInteger("bulwark.lincheck.invocations", 100))
                .threads(THREADS).actorsPerThread(2).actorsBefore(1).actorsAfter(1)
                .sequentialSpecification(Specification.class)
                .check(CancellationSignalLinearizabilityTest.class);
    }

    /** A flag that is set once; the first reason wins; registering on a set flag runs the listener at once. */
    public static final class Specification {
        private boolean cancelled;
        private String reason = "none";

        public boolean cancel() {
            if (cancelled) {
                return false;
            }
            cancelled = true;
            return true;
        }

        public boolean cancelWithReason(int newReason) {
            if (cancelled) {
                return false;
            }
            cancelled = true;
            reason = String.valueOf(newReason);
            return true;
        }

        public boolean isCancelled() {
            return cancelled;
        }

        public String reason() {
            return reason;
        }

        public boolean register(int thread) {
            return cancelled;
        }

        public void closeOldest(int thread) {
        }

        @Override
        public boolean equals(Object other) {
            return other instanceof Specification && cancelled == ((Specification) other).cancelled
                    && reason.equals(((Specification) other).reason);
        }

        @Override
        public int hashCode() {
            return Objects.hash(cancelled, reason);
        }
    }
}
