package dev.bulwark.benchmarks.conformance;

import dev.bulwark.benchmarks.subjects.AsyncWork;
import dev.bulwark.benchmarks.subjects.Subject;
import dev.bulwark.benchmarks.subjects.SubjectSpec;
import dev.bulwark.benchmarks.subjects.Work;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;

/**
 * Runs the {@link Check}s on fresh subjects. Each check is deterministic: it coordinates threads with latches and
 * waits for a thread to be parked by looking at its state, never by sleeping, and it bounds every wait by
 * {@link #PATIENCE} only so that a broken subject fails the check instead of hanging it.
 *
 * <p>Not thread-safe; use one instance per thread. Every check starts its own threads and ends them.
 */
public final class ConformanceCheck {

    /** How long a check waits for something that a correct bulkhead does at once. */
    static final Duration PATIENCE = Duration.ofSeconds(10);

    private static final int LIMIT = 2;
    private static final int ROUNDS = 2;
    private static final int WAITERS = 3;
    private static final int BARGING_ROUNDS = 20;

    private final Function<SubjectSpec, Subject> factory;

    /**
     * Creates a checker for the subjects made by {@code factory}, which must return a new bulkhead on every call.
     *
     * @param factory makes a fresh subject for a spec
     * @throws NullPointerException when {@code factory} is {@code null}
     */
    public ConformanceCheck(Function<SubjectSpec, Subject> factory) {
        this.factory = Objects.requireNonNull(factory, "factory");
    }

    /**
     * Runs one check.
     *
     * @param check the check
     * @return its verdict; an unexpected exception from the subject is a failure, not an error of the check
     */
    public Verdict run(Check check) {
        Objects.requireNonNull(check, "check");
        try {
            switch (check) {
                case SYNC_LIMIT:
                    return syncLimit();
                case ASYNC_LIMIT:
                    return asyncLimit();
                case ASYNC_WAIT:
                    return asyncWait();
                case SYNC_FIFO:
                    return syncFifo();
                default:
                    throw new IllegalArgumentException("unknown check " + check);
            }
        } catch (InterruptedException interrupted) {
            Thread.currentThread().interrupt();
            return Verdict.fail("the check was interrupted");
        } catch (RuntimeException | Error unexpected) {
            // Whatever a subject throws where a bulkhead should return is a finding about the subject.
            return Verdict.fail("threw " + unexpected);
        }
    }

    // ---------------------------------------------------------------------------------------------------------

    private Verdict syncLimit() throws InterruptedException {
        Subject subject = factory.apply(SubjectSpec.refusing(LIMIT));
        for (int round = 1; round <= ROUNDS; round++) {
            String when = round == 1 ? "" : " after the first refusal and release";
            CountDownLatch entered = new CountDownLatch(LIMIT);
            CountDownLatch leave = new CountDownLatch(1);
            Work holding = new Work() {
                @Override
                public Object get() {
                    entered.countDown();
                    awaitQuietly(leave);
                    return RESULT;
                }
            };
            List<Caller> holders = new ArrayList<>();
            try {
                for (int i = 0; i < LIMIT; i++) {
                    holders.add(Caller.start("holder-" + i, () -> subject.call(holding)));
                }
                if (!awaitUntilCountedDownOrAllEnded(entered, holders)) {
                    return Verdict.fail("admitted only " + (LIMIT - entered.getCount()) + " of " + LIMIT
                            + " concurrent calls with a limit of " + LIMIT + when + " (outcomes: "
                            + outcomes(holders) + ")");
                }
                AtomicInteger ran = new AtomicInteger();
                Object extra = subject.call(counting(ran));
                if (ran.get() != 0) {
                    return Verdict.fail("ran a call beyond the limit of " + LIMIT + when);
                }
                if (!subject.isRefusal(extra)) {
                    return Verdict.fail("a call beyond the limit returned " + extra + " instead of a refusal" + when);
                }
            } finally {
                leave.countDown();
                for (Caller holder : holders) {
                    holder.join();
                }
            }
            for (Caller holder : holders) {
                if (holder.result() != Work.RESULT) {
                    return Verdict.fail("a call within the limit ended with " + holder.outcome() + when);
                }
            }
        }
        return Verdict.pass();
    }

    private Verdict asyncLimit() {
        Subject subject = factory.apply(SubjectSpec.refusing(LIMIT));
        for (int round = 1; round <= ROUNDS; round++) {
            String when = round == 1 ? "" : " after the first refusal and release";
            AtomicInteger started = new AtomicInteger();
            List<CompletableFuture<Object>> stages = new ArrayList<>();
            List<CompletableFuture<Object>> results = new ArrayList<>();
            for (int i = 0; i < LIMIT; i++) {
                CompletableFuture<Object> stage = new CompletableFuture<>();
                stages.add(stage);
                results.add(subject.callAsync(startingCounted(started, stage)));
            }
            if (started.get() != LIMIT) {
                stages.forEach(stage -> stage.complete(Work.RESULT));
                return Verdict.fail("started " + started.get() + " of " + LIMIT + " calls within the limit" + when);
            }
            AtomicInteger extraStarted = new AtomicInteger();
            CompletableFuture<Object> extra =
                    subject.callAsync(startingCounted(extraStarted, CompletableFuture.completedFuture(Work.RESULT)));
            boolean extraDone = extra.isDone();
            stages.forEach(stage -> stage.complete(Work.RESULT));
            if (extraStarted.get() != 0) {
                return Verdict.fail("started a call beyond the limit of " + LIMIT + when);
            }
            if (!extraDone) {
                return Verdict.fail("a refused call's future was not complete when the call returned" + when);
            }
            Throwable failure = failureOf(extra);
            if (failure == null || !subject.isRefusal(failure)) {
                return Verdict.fail("a call beyond the limit completed with " + describe(extra)
                        + " instead of a refusal" + when);
            }
            for (CompletableFuture<Object> result : results) {
                if (!result.isDone() || result.isCompletedExceptionally() || result.getNow(null) != Work.RESULT) {
                    return Verdict.fail("a call within the limit ended with " + describe(result) + when);
                }
            }
        }
        return Verdict.pass();
    }

    private Verdict asyncWait() throws InterruptedException {
        Subject subject = factory.apply(SubjectSpec.queueing(1, WAITERS));
        CompletableFuture<Object> gate = new CompletableFuture<>();
        CompletableFuture<Object> holder = subject.callAsync(AsyncWork.returning(gate));
        ConcurrentLinkedQueue<Integer> startOrder = new ConcurrentLinkedQueue<>();
        List<CompletableFuture<Object>> waiters = new ArrayList<>();
        try {
            AtomicReference<CompletableFuture<Object>> first = new AtomicReference<>();
            Caller caller = Caller.start("async-waiter-1", () -> {
                first.set(subject.callAsync(recording(startOrder, 1)));
                return Work.RESULT;
            });
            if (caller.awaitEndedOrParked(PATIENCE) != Caller.State.ENDED) {
                return Verdict.fail("a call that must wait blocked its thread (" + caller.stateDescription() + ")");
            }
            if (caller.failure() != null) {
                return Verdict.fail("a call that must wait threw " + caller.failure());
            }
            waiters.add(first.get());
            for (int i = 2; i <= WAITERS; i++) {
                waiters.add(subject.callAsync(recording(startOrder, i)));
            }
            for (CompletableFuture<Object> waiter : waiters) {
                if (waiter.isDone()) {
                    return Verdict.fail("a call that had to wait completed with " + describe(waiter)
                            + " while the slot was held");
                }
            }
            if (!startOrder.isEmpty()) {
                return Verdict.fail("started a queued call while the slot was held");
            }
        } finally {
            gate.complete(Work.RESULT);
        }
        for (CompletableFuture<Object> waiter : waiters) {
            Object result = awaitQuietly(waiter);
            if (result != Work.RESULT) {
                return Verdict.fail("a queued call ended with " + describe(waiter) + " after the slot was freed");
            }
        }
        if (holder.getNow(null) != Work.RESULT) {
            return Verdict.fail("the call holding the slot ended with " + describe(holder));
        }
        List<Integer> expected = List.of(1, 2, 3);
        if (!new ArrayList<>(startOrder).equals(expected)) {
            return Verdict.fail("queued calls started in the order " + startOrder + ", not " + expected);
        }
        return Verdict.pass();
    }

    private Verdict syncFifo() throws InterruptedException {
        Verdict order = syncFifoRound(WAITERS);
        if (!order.passed()) {
            return order;
        }
        // Whether a newcomer barges depends on whether it runs before the woken waiter does, which a correct
        // bulkhead rules out every time and a barging one allows almost every time; repeating the round makes a
        // barging subject all but certain to show it, while a correct one passes every round.
        for (int round = 1; round < BARGING_ROUNDS; round++) {
            Verdict barging = syncFifoRound(1);
            if (!barging.passed()) {
                return Verdict.fail(barging.detail() + " (in round " + (round + 1) + " of " + BARGING_ROUNDS + ")");
            }
        }
        return Verdict.pass();
    }

    /**
     * One round: a holder, then {@code waiters} callers that queue one after the other, then the holder releases
     * and at once calls again as a newcomer. Expected: the waiters in arrival order, then the newcomer.
     */
    private Verdict syncFifoRound(int waiters) throws InterruptedException {
        Subject subject = factory.apply(SubjectSpec.queueing(1, waiters + 1));
        ConcurrentLinkedQueue<String> order = new ConcurrentLinkedQueue<>();
        CountDownLatch entered = new CountDownLatch(1);
        CountDownLatch leave = new CountDownLatch(1);
        Work holding = new Work() {
            @Override
            public Object get() {
                entered.countDown();
                awaitQuietly(leave);
                return RESULT;
            }
        };
        List<Caller> callers = new ArrayList<>();
        try {
            // The holder calls again the moment its first call has released the slot: a newcomer that a bulkhead
            // without barging must queue behind the waiters.
            callers.add(Caller.start("holder", () -> {
                Object first = subject.call(holding);
                Object second = subject.call(recording(order, "newcomer"));
                return first == Work.RESULT ? second : first;
            }));
            if (!entered.await(PATIENCE.toNanos(), TimeUnit.NANOSECONDS)) {
                return Verdict.fail("the first call on an idle bulkhead did not start");
            }
            for (int i = 1; i <= waiters; i++) {
                String label = "waiter-" + i;
                Caller waiter = Caller.start(label, () -> subject.call(recording(order, label)));
                callers.add(waiter);
                if (waiter.awaitEndedOrParked(PATIENCE) != Caller.State.PARKED) {
                    return Verdict.fail(label + " did not wait for the slot (" + waiter.stateDescription() + ")");
                }
            }
        } finally {
            leave.countDown();
            for (Caller caller : callers) {
                caller.join();
            }
        }
        for (Caller caller : callers) {
            if (caller.result() != Work.RESULT) {
                return Verdict.fail(caller.name() + " ended with " + caller.outcome());
            }
        }
        List<String> observed = new ArrayList<>(order);
        List<String> expected = new ArrayList<>();
        for (int i = 1; i <= waiters; i++) {
            expected.add("waiter-" + i);
        }
        expected.add("newcomer");
        if (!observed.equals(expected)) {
            return Verdict.fail("the slot went to " + String.join(", ", observed) + " instead of "
                    + String.join(", ", expected) + " (waiters in arrival order, then the newcomer)");
        }
        return Verdict.pass();
    }

    // ---------------------------------------------------------------------------------------------------------

    private static Work counting(AtomicInteger ran) {
        return new Work() {
            @Override
            public Object get() {
                ran.incrementAndGet();
                return RESULT;
            }
        };
    }

    private static Work recording(ConcurrentLinkedQueue<String> order, String label) {
        return new Work() {
            @Override
            public Object get() {
                order.add(label);
                return RESULT;
            }
        };
    }

    private static AsyncWork recording(ConcurrentLinkedQueue<Integer> order, int label) {
        return new AsyncWork() {
            @Override
            public java.util.concurrent.CompletionStage<Object> get() {
                order.add(label);
                return CompletableFuture.completedFuture(Work.RESULT);
            }
        };
    }

    private static AsyncWork startingCounted(AtomicInteger started, CompletableFuture<Object> stage) {
        return new AsyncWork() {
            @Override
            public java.util.concurrent.CompletionStage<Object> get() {
                started.incrementAndGet();
                return stage;
            }
        };
    }

    private static boolean awaitUntilCountedDownOrAllEnded(CountDownLatch latch, List<Caller> callers)
            throws InterruptedException {
        long deadline = System.nanoTime() + PATIENCE.toNanos();
        while (System.nanoTime() < deadline) {
            if (latch.await(1, TimeUnit.MILLISECONDS)) {
                return true;
            }
            if (callers.stream().anyMatch(Caller::ended)) {
                return latch.getCount() == 0;
            }
        }
        return false;
    }

    private static void awaitQuietly(CountDownLatch latch) {
        try {
            if (!latch.await(PATIENCE.toNanos(), TimeUnit.NANOSECONDS)) {
                throw new IllegalStateException("the check did not release the call in time");
            }
        } catch (InterruptedException interrupted) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while holding a slot", interrupted);
        }
    }

    private static Object awaitQuietly(CompletableFuture<Object> future) {
        try {
            return future.get(PATIENCE.toNanos(), TimeUnit.NANOSECONDS);
        } catch (InterruptedException interrupted) {
            Thread.currentThread().interrupt();
            return null;
        } catch (Exception failed) {
            return null;
        }
    }

    private static Throwable failureOf(CompletableFuture<Object> future) {
        if (!future.isCompletedExceptionally()) {
            return null;
        }
        try {
            future.join();
            return null;
        } catch (CompletionException wrapped) {
            return wrapped.getCause();
        } catch (RuntimeException direct) {
            return direct;
        }
    }

    private static String describe(CompletableFuture<Object> future) {
        if (!future.isDone()) {
            return "nothing (still pending)";
        }
        Throwable failure = failureOf(future);
        return failure != null ? failure.toString() : String.valueOf(future.getNow(null));
    }

    private static String outcomes(List<Caller> callers) {
        List<String> outcomes = new ArrayList<>();
        for (Caller caller : callers) {
            outcomes.add(caller.ended() ? caller.outcome() : "running");
        }
        return String.join(", ", outcomes);
    }
}
