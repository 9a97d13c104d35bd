package dev.bulwark;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
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
 * Lincheck checks that the bulkhead is linearizable against {@link Specification}, a plain sequential model of a
 * bulkhead with a concurrency limit, a FIFO queue and a queue limit: every concurrent history of the operations
 * below must be explainable by some order of whole operations that respects real time.
 *
 * <p>The operations are the non-blocking ones (Lincheck cannot model a Java thread parked on a condition it does
 * not know): {@code tryAcquire}, closing a held permit, {@code acquireAsync} that is queued and later cancelled
 * (through its future or through its signal), fired by its wait timer, or granted; and {@code changeMaxConcurrency}.
 * Each Lincheck thread owns its permits and its queued futures (indexed by the thread id Lincheck passes in: 0 is
 * the initial part, the last index the final part), so an operation only releases or cancels what its own thread
 * holds, as a real caller would.
 *
 * <p>Bug classes this covers, in the windows that have no hook for a forced interleaving
 * ({@link BulkheadRaceTest} forces the others):
 * <ul>
 *   <li>grant racing timeout/cancel: a release (or a limit raise) grants a waiter while the waiter's timer or
 *       cancellation runs, including between the owner's CAS and its removal from the queue (.NET #64078, #77180,
 *       #90810; Failsafe #393 permanent leak when the loser keeps the permit);</li>
 *   <li>lost wakeup: a release that checks the queue before the waiter is linked (SmallRye);</li>
 *   <li>check-then-act over-admission and barging (Sentinel #628): {@code tryAcquire}/{@code acquireAsync} racing
 *       releases and queue joins;</li>
 *   <li>release racing a limit change, lowering and raising (Resilience4j #979).</li>
 * </ul>
 * {@link #countsAreExactWhenQuiet()} then checks after every run that the counts match what the threads hold:
 * no slot leaked, none freed twice.
 */
@Tag("lincheck")
@Param(name = "thread", gen = ThreadIdGen.class)
@Param(name = "limit", gen = IntGen.class, conf = "1:3")
public class BulkheadLinearizabilityTest {

    static final int LIMIT = 2;
    static final int QUEUE = 2;
    static final int THREADS = 3;
    /** Thread ids Lincheck hands out: 0 for the initial part, 1..THREADS for the parallel part, then the final part. */
    static final int THREAD_IDS = THREADS + 2;

    static final String NONE = "NONE";
    static final String CANCELLED = "CANCELLED";
    static final String TIMED_OUT = "TIMED_OUT";
    static final String NOT_TIMED_OUT = "NOT_TIMED_OUT";

    /** A queued (or already granted) {@code acquireAsync} of one thread, with its wait timer. */
    private static final class Pending {
        final CompletableFuture<Permit> future;
        final CancellationSignal signal;
        final Runnable timer;

        Pending(CompletableFuture<Permit> future, CancellationSignal signal, Runnable timer) {
            this.future = future;
            this.signal = signal;
            this.timer = timer;
        }

        boolean granted() {
            return future.isDone() && !future.isCompletedExceptionally();
        }
    }

    /** The wait timer the bulkhead asked for on this thread; the test fires it when it wants. */
    private final ThreadLocal<Runnable> lastTimer = new ThreadLocal<>();
    private final Bulkhead bulkhead = Bulkhead.builder().name("lincheck").maxConcurrency(LIMIT).maxQueue(QUEUE)
            .maxWait(Duration.ofSeconds(1)).ticker(() -> 0L).scheduler((task, delay, unit) -> {
                lastTimer.set(task);
                return () -> { };
            }).build();
    @SuppressWarnings("unchecked")
    private final ArrayDeque<Permit>[] held = new ArrayDeque[THREAD_IDS];
    @SuppressWarnings("unchecked")
    private final ArrayDeque<Pending>[] pending = new ArrayDeque[THREAD_IDS];

    public BulkheadLinearizabilityTest() {
        for (int i = 0; i < THREAD_IDS; i++) {
            held[i] = new ArrayDeque<>();
            pending[i] = new ArrayDeque<>();
        }
    }

    @Operation
    public boolean tryAcquire(@Param(name = "thread") int thread) {
        Optional<Permit> permit = bulkhead.tryAcquire();
        permit.ifPresent(held[thread]::push);
        return permit.isPresent();
    }

    @Operation
    public boolean release(@Param(name = "thread") int thread) {
        Permit permit = held[thread].poll();
        if (permit == null) {
            return false;
        }
        permit.close();
        return true;
    }

    /** Returns whether the call was accepted (granted at once or queued) rather than refused as queue-full. */
    @Operation
    public boolean acquireAsync(@Param(name = "thread") int thread) {
        CancellationSignal signal = CancellationSignal.create();
        lastTimer.remove();
        CompletableFuture<Permit> future = bulkhead.acquireAsync(signal);
        // Only this thread cancels or times out its own waiters, so a failed future here can only be a refusal.
        if (future.isCompletedExceptionally()) {
            return false;
        }
        pending[thread].addLast(new Pending(future, signal, lastTimer.get()));
        return true;
    }

    /**
     * Gives up on this thread's oldest {@code acquireAsync}. A waiter whose grant is still being delivered by
     * another thread counts as cancelled: that thread passes the slot on.
     */
    @Operation
    public String cancelOldest(@Param(name = "thread") int thread, boolean throughSignal) {
        Pending waiter = pending[thread].pollFirst();
        if (waiter == null) {
            return NONE;
        }
        if (throughSignal) {
            waiter.signal.cancel();
        } else {
            waiter.future.cancel(false);
        }
        // A signal's cancel that meets a grant whose delivery has begun leaves the future to the delivering thread,
        // which gives the slot back and fails the future: wait for it (the future always completes after a cancel).
        waiter.future.handle((value, failure) -> null).join();
        if (waiter.granted()) {
            // Delivered before the cancel: the caller gives the permit back, as the cancel itself does when it comes
            // between a grant and its delivery. Which of the two happened is a matter of timing no caller can see
            // (the model has no delivery), so both read as "cancelled, slot given back" (see the model).
            waiter.future.join().close();
        }
        return CANCELLED;
    }

    /** Fires the wait timer of this thread's oldest {@code acquireAsync}, as the timer thread would. */
    @Operation
    public String timeOutOldest(@Param(name = "thread") int thread) {
        Pending waiter = pending[thread].peekFirst();
        if (waiter == null) {
            return NONE;
        }
        if (waiter.timer != null) {
            waiter.timer.run();
        }
        if (waiter.future.isCompletedExceptionally()) {
            pending[thread].pollFirst();
            return TIMED_OUT;
        }
        return NOT_TIMED_OUT;
    }

    @Operation
    public void changeMaxConcurrency(@Param(name = "limit") int limit) {
        bulkhead.changeMaxConcurrency(limit);
    }

    @Operation
    public int maxConcurrency() {
        return bulkhead.maxConcurrency();
    }

    /**
     * Once every operation has returned, the bulkhead is quiet, so its counts must be exact: every slot in use is a
     * permit some thread holds or a granted future nobody has collected, every waiter is a future still pending,
     * and nobody waits while a slot is free.
     */
    @Validate
    public void countsAreExactWhenQuiet() {
        int permits = 0;
        int granted = 0;
        int waiting = 0;
        for (int i = 0; i < THREAD_IDS; i++) {
            for (Permit permit : held[i]) {
                if (permit.isReleased()) {
                    throw new AssertionError("a held permit was released behind its holder's back");
                }
                permits++;
            }
            for (Pending waiter : pending[i]) {
                if (waiter.granted()) {
                    granted++;
                } else if (waiter.future.isDone()) {
                    throw new AssertionError("a pending waiter ended without anyone giving up on it: "
                            + waiter.future);
                } else {
                    waiting++;
                }
            }
        }
        int executing = bulkhead.executingCount();
        int queued = bulkhead.queuedCount();
        if (executing != permits + granted) {
            throw new AssertionError("executingCount " + executing + " but " + permits + " permits held and "
                    + granted + " granted futures");
        }
        if (queued != waiting) {
            throw new AssertionError("queuedCount " + queued + " but " + waiting + " futures still wait");
        }
        if (queued > 0 && executing < bulkhead.maxConcurrency()) {
            throw new AssertionError("a slot is free while " + queued + " wait: " + bulkhead);
        }
    }

    /**
     * Many small scenarios rather than few deep ones: a race needs the right operations in the right threads more
     * than it needs many interleavings of one scenario. This budget finds the limit-change race fixed in
     * {@code maxConcurrency()} (a limit visible before its slots) in about a minute on 2 cores.
     */
    @Test
    void modelChecking() {
        new ModelCheckingOptions()
                .iterations(Integer.getInteger("bulwark.lincheck.iterations", 40))
                .invocationsPerIteration(Integer.getInteger("bulwark.lincheck.invocations", 50))
                .threads(THREADS).actorsPerThread(3).actorsBefore(2).actorsAfter(1)
                .sequentialSpecification(Specification.class)
                .check(BulkheadLinearizabilityTest.class);
    }

    @Test
    void stress() {
        new StressOptions()
                .iterations(Integer.getInteger("bulwark.lincheck.iterations", 40))
                .invocationsPerIteration(Integer.getInteger("bulwark.lincheck.invocations", 50) * 2)
                .threads(THREADS).actorsPerThread(3).actorsBefore(2).actorsAfter(1)
                .sequentialSpecification(Specification.class)
                .check(BulkheadLinearizabilityTest.class);
    }

    /**
     * The sequential bulkhead: a slot count, a FIFO queue and the rules of README "Semantics". A release hands its
     * slot to the head of the queue unless the limit was lowered below the slots in use, in which case the slot
     * retires; raising the limit grants waiters at once.
     */
    public static final class Specification {

        private static final class Waiter {
            final int owner;
            boolean granted;

            Waiter(int owner, boolean granted) {
                this.owner = owner;
                this.granted = granted;
            }
        }

        private int limit = LIMIT;
        private int executing;
        private final ArrayDeque<Waiter> queue = new ArrayDeque<>();
        private final int[] held = new int[THREAD_IDS];
        @SuppressWarnings("unchecked")
        private final ArrayDeque<Waiter>[] pending = new ArrayDeque[THREAD_IDS];

        public Specification() {
            for (int i = 0; i < THREAD_IDS; i++) {
                pending[i] = new ArrayDeque<>();
            }
        }

        public boolean tryAcquire(int thread) {
            if (queue.isEmpty() && executing < limit) {
                executing++;
                held[thread]++;
                return true;
            }
            return false;
        }

        public boolean release(int thread) {
            if (held[thread] == 0) {
                return false;
            }
            held[thread]--;
            freeOneSlot();
            return true;
        }

        private void freeOneSlot() {
            if (!queue.isEmpty() && executing <= limit) {
                queue.pollFirst().granted = true;
            } else {
                executing--;
            }
        }

        public boolean acquireAsync(int thread) {
            if (queue.isEmpty() && executing < limit) {
                executing++;
                pending[thread].addLast(new Waiter(thread, true));
                return true;
            }
            if (queue.size() >= QUEUE) {
                return false;
            }
            Waiter waiter = new Waiter(thread, false);
            queue.addLast(waiter);
            pending[thread].addLast(waiter);
            return true;
        }

        public String cancelOldest(int thread, boolean throughSignal) {
            Waiter waiter = pending[thread].pollFirst();
            if (waiter == null) {
                return NONE;
            }
            if (waiter.granted) {
                // A grant not yet delivered when the caller cancels is given back by the cancel; one delivered
                // before is given back by the test: either way the slot returns at the cancel.
                freeOneSlot();
                return CANCELLED;
            }
            queue.remove(waiter);
            return CANCELLED;
        }

        public String timeOutOldest(int thread) {
            Waiter waiter = pending[thread].peekFirst();
            if (waiter == null) {
                return NONE;
            }
            if (waiter.granted) {
                return NOT_TIMED_OUT;
            }
            queue.remove(waiter);
            pending[thread].pollFirst();
            return TIMED_OUT;
        }

        public void changeMaxConcurrency(int newLimit) {
            limit = newLimit;
            while (!queue.isEmpty() && executing < limit) {
                executing++;
                queue.pollFirst().granted = true;
            }
        }

        public int maxConcurrency() {
            return limit;
        }

        /** The observable state; equal states let Lincheck's verifier merge equivalent histories. */
        private List<Object> state() {
            List<Object> state = new ArrayList<>();
            state.add(limit);
            state.add(executing);
            state.add(Arrays.toString(held));
            List<Integer> queueOwners = new ArrayList<>();
            queue.forEach(waiter -> queueOwners.add(waiter.owner));
            state.add(queueOwners);
            for (ArrayDeque<Waiter> waiters : pending) {
                List<Boolean> granted = new ArrayList<>();
                waiters.forEach(waiter -> granted.add(waiter.granted));
                state.add(granted);
            }
            return state;
        }

        @Override
        public boolean equals(Object other) {
            return other instanceof Specification && state().equals(((Specification) other).state());
        }

        @Override
        public int hashCode() {
            return state().hashCode();
        }
    }
}
