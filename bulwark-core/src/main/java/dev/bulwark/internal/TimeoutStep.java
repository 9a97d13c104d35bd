package dev.bulwark.internal;

import dev.bulwark.internal.util.ListenerList;
import dev.bulwark.internal.util.Stages;
import dev.bulwark.internal.util.VarHandles;
import dev.bulwark.CancellationSignal;
import dev.bulwark.Scheduler;
import dev.bulwark.ThrowingSupplier;
import dev.bulwark.Ticker;
import dev.bulwark.TimeoutExceededException;
import dev.bulwark.TimeoutListener;
import dev.bulwark.internal.util.Arguments;
import dev.bulwark.internal.timer.OffTimer;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;
import java.util.function.Supplier;

/**
 * The behaviour behind {@link dev.bulwark.Timeout}; see its javadoc for the rules. Immutable and thread-safe.
 *
 * <p>Each call has a deadline object whose state moves once, by compare-and-set, from RUNNING to either FINISHED
 * (the call ended first) or FIRING (the timer fired first). Exactly one of the two outcomes is reported, and only
 * the timer's side cancels the inner signal and interrupts.
 */
public final class TimeoutStep implements ChainStep {

    private static final int RUNNING = 0;
    private static final int FIRING = 1;
    private static final int FIRED = 2;
    private static final int FINISHED = 3;

    private final String name;
    private final Duration timeout;
    private final long timeoutNanos;
    private final boolean interruptOnTimeout;
    private final ListenerList<TimeoutListener> listeners;
    private final Scheduler scheduler;
    private final Ticker ticker;
    /** Whether the scheduler is the shared timing wheel, so that a sync deadline can be its own timer node. */
    private final boolean sharedWheel;

    /**
     * Creates the step from checked configuration.
     *
     * @param name the name
     * @param timeout the positive duration
     * @param interruptOnTimeout whether to interrupt a synchronous caller at the deadline
     * @param listeners listeners in order
     * @param scheduler fires the deadlines
     * @param ticker measures elapsed time for listeners
     */
    public TimeoutStep(String name, Duration timeout, boolean interruptOnTimeout, List<TimeoutListener> listeners,
                       Scheduler scheduler, Ticker ticker) {
        this.name = name;
        this.timeout = timeout;
        long nanos = Arguments.boundedNanos(timeout);
        this.timeoutNanos = nanos == 0L ? Long.MAX_VALUE : nanos;
        this.interruptOnTimeout = interruptOnTimeout;
        this.listeners = new ListenerList<>("dev.bulwark", "", name, listeners);
        this.scheduler = scheduler;
        this.ticker = ticker;
        this.sharedWheel = scheduler == SharedScheduler.INSTANCE;
        FirstUse.prepare();
    }

    /**
     * Returns the name.
     *
     * @return the name
     */
    public String name() {
        return name;
    }

    /**
     * Attaches a listener.
     *
     * @param listener the listener
     * @return the subscription that detaches it
     */
    public dev.bulwark.Subscription addListener(TimeoutListener listener) {
        return listeners.add(listener);
    }

    /**
     * Returns the duration.
     *
     * @return the timeout
     */
    public Duration timeout() {
        return timeout;
    }

    void reportTimedOut(TimeoutExceededException exception) {
        if (!listeners.isEmpty()) {
            listeners.each("timedOut", listener -> listener.timedOut(exception));
        }
    }

    /** Reads the clock for a call's start if someone listens, else returns {@link #UNTIMED}. */
    long startTimeIfListened() {
        return listeners.isEmpty() ? UNTIMED : ticker.read();
    }

    /** Marks a call whose start was not read because nobody listened then. */
    static final long UNTIMED = Long.MIN_VALUE;

    long timeoutNanos() {
        return timeoutNanos;
    }

    boolean interruptsOnTimeout() {
        return interruptOnTimeout;
    }

    void reportInTime(long startedAt) {
        if (startedAt == UNTIMED) {
            // A listener attached while the call ran: nobody read the start, so it gets an elapsed time of 0.
            if (!listeners.isEmpty()) {
                listeners.each("finishedInTime", listener -> listener.finishedInTime(0L));
            }
            return;
        }
        if (!listeners.isEmpty()) {
            long elapsed = Math.max(0L, ticker.read() - startedAt);
            listeners.each("finishedInTime", listener -> listener.finishedInTime(elapsed));
        }
    }

    /**
     * Ends a synchronous call that finished before its deadline, on either timer: the listeners hear it, then the
     * call's own outcome passes through untouched.
     *
     * @param startedAt what {@link #startTime()} or {@link #startTimeIfListened()} read
     * @param result the call's result
     * @param failure what the call threw, or {@code null}
     * @return {@code result}
     * @throws X {@code failure}, the same instance
     */
    <T, X extends Throwable> T endedInTime(long startedAt, T result, Throwable failure) throws X {
        reportInTime(startedAt);
        if (failure != null) {
            throw Throwables.<X>rethrow(failure);
        }
        return result;
    }

    /**
     * Ends a synchronous call whose deadline passed first, on either timer: what the call threw after the deadline
     * (other than the timeout itself or an exception caused by it) is added to the timeout as suppressed, and the
     * listeners hear it on the caller's thread before the caller sees the exception, so that a count read after the
     * outcome includes it.
     *
     * @param timedOut the exception the timer made
     * @param failure what the call threw, or {@code null}
     * @return {@code timedOut}, to throw
     */
    TimeoutExceededException endedLate(TimeoutExceededException timedOut, Throwable failure) {
        if (failure != null && failure != timedOut && failure.getCause() != timedOut) {
            timedOut.addSuppressed(failure);
        }
        reportTimedOut(timedOut);
        return timedOut;
    }

    /**
     * Reads the start time for the elapsed time listeners get. Always read (a timeout already costs a timer task
     * per call): a listener attached while the call runs must not get an elapsed time measured from zero.
     */
    private long startTime() {
        return ticker.read();
    }

    // ---------------------------------------------------------------------------------------------------------
    // Synchronous

    @Override
    public <T, X extends Throwable> T call(Chain chain, int next, ThrowingSupplier<? extends T, X> operation,
                                           CancellationSignal signal) throws X {
        if (signal.isCancelled()) {
            throw Signals.cancelled("Timeout '" + name + "': the call was cancelled before it started", signal);
        }
        if (sharedWheel) {
            return SyncWheelDeadline.call(this, chain, next, operation, signal);
        }
        CancellationSignal inner = CancellationSignal.create();
        CancellationSignal.Registration link = Signals.link(signal, inner);
        SyncDeadline deadline = new SyncDeadline(this, Thread.currentThread(), inner);
        long startedAt = startTime();
        Scheduler.Cancellable task;
        try {
            task = scheduler.schedule(deadline, timeoutNanos, TimeUnit.NANOSECONDS);
        } catch (RuntimeException | Error refused) {
            // Without a timer there is no deadline to keep: refuse before running anything.
            link.close();
            throw refused;
        }
        T result = null;
        Throwable failure = null;
        try {
            result = chain.proceed(next, operation, inner);
        } catch (Throwable thrown) {
            failure = thrown;
        }
        task.cancel();
        link.close();
        if (deadline.finish()) {
            return this.<T, X>endedInTime(startedAt, result, failure);
        }
        throw endedLate(deadline.exception, failure);
    }

    /** The deadline of one synchronous call. The timer runs it; the caller calls {@link #finish()}. */
    private static final class SyncDeadline implements Runnable {
        private static final VarHandle STATE = VarHandles.field(MethodHandles.lookup(), "state", int.class);

        private final TimeoutStep policy;
        private final Thread caller;
        private final CancellationSignal inner;
        private volatile int state;
        private TimeoutExceededException exception; // written before state becomes FIRED
        /** Whether the timer interrupted the caller; written before state becomes FIRED. */
        private boolean interruptedCaller;

        SyncDeadline(TimeoutStep policy, Thread caller, CancellationSignal inner) {
            this.policy = policy;
            this.caller = caller;
            this.inner = inner;
        }

        @Override
        public void run() {
            if (!STATE.compareAndSet(this, RUNNING, FIRING)) {
                return;
            }
            TimeoutExceededException timedOut = new TimeoutExceededException(policy.name, policy.timeout);
            exception = timedOut;
            try {
                inner.cancel(timedOut);
                // An interrupt already pending is the caller's own: it is neither repeated nor cleared afterwards.
                if (policy.interruptOnTimeout && !caller.isInterrupted()) {
                    interruptedCaller = true;
                    caller.interrupt();
                }
            } finally {
                state = FIRED;
            }
            // Reported by the caller when it returns (see call), never here on the scheduler's thread.
        }

        /**
         * Ends the race from the caller's side.
         *
         * @return {@code true} when the call ended before the deadline; {@code false} when the timer won, in which
         *     case this returns only once the timer has finished interrupting, and the interrupt it caused is
         *     cleared
         */
        boolean finish() {
            if (STATE.compareAndSet(this, RUNNING, FINISHED)) {
                return true;
            }
            // The timer is between its CAS and its last write: a few instructions plus cancelling the inner
            // signal, whose listeners are Bulwark's own quick callbacks (or a foreign inner policy's, documented
            // in Timeout to be quick).
            int spins = 0;
            while (state != FIRED) {
                if (++spins < 100) {
                    Thread.onSpinWait();
                } else {
                    Thread.yield();
                }
            }
            if (interruptedCaller) {
                Thread.interrupted();
            }
            return false;
        }
    }

    // ---------------------------------------------------------------------------------------------------------
    // Asynchronous

    @Override
    public <T> CompletableFuture<T> callAsync(Chain chain, int next, Supplier<? extends CompletionStage<T>> operation,
                                              CancellationSignal signal) {
        CompletableFuture<T> result = new CompletableFuture<>();
        if (signal.isCancelled()) {
            result.completeExceptionally(Signals.cancelled("Timeout '" + name + "': the call was cancelled before it "
                    + "started", signal));
            return result;
        }
        CancellationSignal inner = CancellationSignal.create();
        CancellationSignal.Registration link = Signals.link(signal, inner);
        long startedAt = startTime();
        AsyncDeadline<T> deadline = new AsyncDeadline<>(this, result, inner, link, startedAt);
        // The deadline is asked for before the operation starts, as on the synchronous path: a scheduler that refuses
        // it fails the call before anything ran, never after an operation that then runs for nobody.
        try {
            deadline.task = scheduler.schedule(deadline, timeoutNanos, TimeUnit.NANOSECONDS);
        } catch (Throwable refused) {
            // Whatever the scheduler throws (an Error too) fails the returned future, never the caller's thread.
            link.close();
            result.completeExceptionally(refused);
            return result;
        }
        CompletionStage<T> stage = Stages.start(() -> chain.proceedAsync(next, operation, inner));
        deadline.innerStage = stage;
        if (deadline.state == FIRED) {
            // The timer fired while the operation started, so its timedOut may have found no stage to cancel.
            Stages.cancel(stage, interruptOnTimeout);
        }
        // A stage already complete ends the race here, on this thread: the timer is cancelled, the outcome relayed.
        stage.whenComplete(deadline);
        result.whenComplete((value, failure) -> deadline.callerDone());
        return result;
    }

    /** The deadline of one asynchronous call: timer task, relay of the inner stage, and caller hook. */
    private static final class AsyncDeadline<T> implements Runnable, BiConsumer<T, Throwable> {
        private static final VarHandle STATE = VarHandles.field(MethodHandles.lookup(), "state", int.class);

        private final TimeoutStep policy;
        private final CompletableFuture<T> result;
        private final CancellationSignal inner;
        private final CancellationSignal.Registration link;
        private final long startedAt;
        volatile int state;
        volatile Scheduler.Cancellable task;
        volatile CompletionStage<T> innerStage;

        AsyncDeadline(TimeoutStep policy, CompletableFuture<T> result, CancellationSignal inner,
                      CancellationSignal.Registration link, long startedAt) {
            this.policy = policy;
            this.result = result;
            this.inner = inner;
            this.link = link;
            this.startedAt = startedAt;
        }

        /**
         * The timer fired: the timeout wins here, at the deadline. What follows (cancelling the inner call, failing
         * the caller's future, the listeners) reaches user code, so on the timer thread it is handed off.
         */
        @Override
        public void run() {
            if (!STATE.compareAndSet(this, RUNNING, FIRED)) {
                return;
            }
            OffTimer.run(this::timedOut);
        }

        private void timedOut() {
            TimeoutExceededException timedOut = new TimeoutExceededException(policy.name, policy.timeout);
            // The inner stage first: an inner policy whose returned future is cancelled ends without reporting (the
            // call is this timeout's to report), whereas one that saw the signal first would report its own end (an
            // inner retry in its delay would tell its listeners 'failed' with a CancellationException).
            CompletionStage<T> stage = innerStage;
            if (stage != null) {
                Stages.cancel(stage, policy.interruptOnTimeout);
            }
            inner.cancel(timedOut);
            link.close();
            // Counts before outcomes: the listeners hear of it before the caller's future fails, so a count read
            // by whoever saw the failure includes it (issue 40).
            policy.reportTimedOut(timedOut);
            result.completeExceptionally(timedOut);
        }

        /** The inner stage completed. */
        @Override
        public void accept(T value, Throwable failure) {
            if (!STATE.compareAndSet(this, RUNNING, FINISHED)) {
                return; // late: the timer (or the caller) already decided the outcome
            }
            cancelTimer();
            link.close();
            policy.reportInTime(startedAt);
            if (failure == null) {
                result.complete(value);
            } else {
                result.completeExceptionally(Stages.unwrap(failure));
            }
        }

        /** The returned future completed: by us, or by the caller giving up early. */
        void callerDone() {
            if (!STATE.compareAndSet(this, RUNNING, FINISHED)) {
                return;
            }
            cancelTimer();
            inner.cancel(new CancellationException("Timeout '" + policy.name + "': the caller gave up"));
            CompletionStage<T> stage = innerStage;
            if (stage != null) {
                Stages.cancel(stage, false);
            }
            link.close();
        }

        private void cancelTimer() {
            Scheduler.Cancellable timer = task;
            if (timer != null) {
                timer.cancel();
            }
        }
    }

    @Override
    public String toString() {
        return name + ": " + timeout + (interruptOnTimeout ? ", interrupts" : "");
    }
}
