package dev.bulwark.internal;

import dev.bulwark.BulkheadRejectedException;
import dev.bulwark.CancellationSignal;
import dev.bulwark.Rejection;
import dev.bulwark.RetryEvent;
import dev.bulwark.RetryListener;
import dev.bulwark.Scheduler;
import dev.bulwark.ThrowingSupplier;
import dev.bulwark.Ticker;
import dev.bulwark.internal.util.ListenerList;
import dev.bulwark.internal.util.Stages;
import dev.bulwark.internal.util.VarHandles;
import dev.bulwark.internal.timer.OffTimer;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;
import java.util.function.Predicate;
import java.util.function.Supplier;

/** The behaviour behind {@link dev.bulwark.Retry}; see its javadoc for the rules. Immutable and thread-safe. */
public final class RetryStep implements ChainStep {

    /**
     * The logger, looked up when first needed: finding the logging back end costs milliseconds (a service look-up)
     * that neither {@code build()} nor a caller's first call should pay for a failure that may never come.
     */
    private static final class Log {
        static final System.Logger LOGGER = System.getLogger("dev.bulwark.Retry");

        private Log() {
        }
    }

    private final String name;
    private final List<Class<? extends Throwable>> handledTypes;
    private final List<Predicate<? super Throwable>> handledIf;
    private final int maxRetries;
    private final long fixedDelayNanos;
    private final long backoffInitialNanos;
    private final long backoffMaxNanos;
    private final double multiplier;
    private final double jitter;
    private final long jitterSpreadNanos;
    private final boolean retryClosedBulkheads;
    private final ListenerList<RetryListener> listeners;
    private final Scheduler scheduler;
    private final Ticker ticker;

    /**
     * Creates the step from checked configuration (the public builder validates every value).
     *
     * @param name the name
     * @param handledTypes failure types to retry; with {@code handledIf} empty too, every Exception but an
     *     InterruptedException is retried
     * @param handledIf predicates selecting failures to retry
     * @param maxRetries retries after the first attempt
     * @param delay fixed delay or {@code null}
     * @param backoffInitial first exponential delay or {@code null}
     * @param backoffMax longest exponential delay or {@code null}
     * @param multiplier growth of the exponential delay, at least 1 and finite (2: doubling)
     * @param jitter fraction in [0, 1]
     * @param jitterSpread absolute jitter for a delay as long as the first, or {@code null}; exclusive with a
     *     non-zero {@code jitter}
     * @param retryClosedBulkheads whether a bulkhead's refusal for {@link Rejection.Reason#CLOSED} may be retried
     *     (when selected); otherwise it never is
     * @param listeners listeners in order
     * @param scheduler for asynchronous delays
     * @param ticker for synchronous delays
     */
    public RetryStep(String name, List<Class<? extends Throwable>> handledTypes,
                     List<Predicate<? super Throwable>> handledIf, int maxRetries, Duration delay,
                     Duration backoffInitial, Duration backoffMax, double multiplier, double jitter,
                     Duration jitterSpread, boolean retryClosedBulkheads, List<RetryListener> listeners,
                     Scheduler scheduler, Ticker ticker) {
        this.name = name;
        this.handledTypes = handledTypes;
        this.handledIf = handledIf;
        this.maxRetries = maxRetries;
        this.fixedDelayNanos = delay == null ? 0L : saturatedNanos(delay);
        this.backoffInitialNanos = backoffInitial == null ? 0L : saturatedNanos(backoffInitial);
        this.backoffMaxNanos = backoffMax == null ? 0L : saturatedNanos(backoffMax);
        this.multiplier = multiplier;
        this.jitter = jitter;
        this.jitterSpreadNanos = jitterSpread == null ? 0L : saturatedNanos(jitterSpread);
        this.retryClosedBulkheads = retryClosedBulkheads;
        this.listeners = new ListenerList<>("dev.bulwark", "", name, listeners);
        this.scheduler = scheduler;
        this.ticker = ticker;
    }

    private static long saturatedNanos(Duration duration) {
        try {
            return duration.toNanos();
        } catch (ArithmeticException tooLong) {
            return Long.MAX_VALUE;
        }
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
    public dev.bulwark.Subscription addListener(RetryListener listener) {
        return listeners.add(listener);
    }

    /**
     * Returns the maximum number of retries.
     *
     * @return at least 0
     */
    public int maxRetries() {
        return maxRetries;
    }

    // ---------------------------------------------------------------------------------------------------------
    // Decisions

    /** Whether a failure of the given attempt should be retried. Never throws. */
    boolean shouldRetry(Throwable failure, int attempt, CancellationSignal signal) {
        return attempt <= maxRetries && !signal.isCancelled() && handles(failure);
    }

    private boolean handles(Throwable failure) {
        if (failure instanceof CancellationException) {
            return false;
        }
        if (!retryClosedBulkheads && failure instanceof BulkheadRejectedException refusal
                && refusal.rejection().reason() == Rejection.Reason.CLOSED) {
            // A closed or draining bulkhead never admits again: another attempt would only wait out the delay
            // before failing the same way, keeping the caller (or its fallback) waiting for nothing.
            return false;
        }
        if (handledTypes.isEmpty() && handledIf.isEmpty()) {
            // An InterruptedException says the thread was asked to stop (its status is already cleared by whoever
            // threw it): retrying would swallow the request, so by default it passes through.
            return failure instanceof Exception && !(failure instanceof InterruptedException);
        }
        return HandledFailures.matches(failure, handledTypes, handledIf, Log.LOGGER, " of retry '" + name + "'");
    }

    /**
     * The delay after the given failed attempt (1-based), jitter included. A backoff's maximum bounds the jittered
     * delay, so no delay ever exceeds it; a fixed delay has no cap and is jittered either way by a fraction, upwards
     * only by an absolute jitter.
     */
    long delayNanos(int failedAttempt) {
        long base;
        long cap;
        long first;
        if (backoffInitialNanos > 0L) {
            if (multiplier == 2.0) {
                int doublings = Math.min(failedAttempt - 1, 62);
                long grown = backoffInitialNanos << doublings;
                // Overflowed (or would have): the cap applies.
                base = (grown >>> doublings) != backoffInitialNanos || grown < 0 ? backoffMaxNanos
                        : Math.min(grown, backoffMaxNanos);
            } else {
                // An infinite power (a huge attempt number) is at the cap too.
                double grown = backoffInitialNanos * Math.pow(multiplier, failedAttempt - 1);
                base = grown >= backoffMaxNanos ? backoffMaxNanos : (long) grown;
            }
            cap = backoffMaxNanos;
            first = backoffInitialNanos;
        } else {
            base = fixedDelayNanos;
            cap = Long.MAX_VALUE;
            first = fixedDelayNanos;
        }
        if (base == 0L) {
            return 0L;
        }
        if (jitterSpreadNanos > 0L) {
            return spread(base, first, cap);
        }
        if (jitter == 0.0) {
            return base;
        }
        double factor = 1.0 + jitter * (2.0 * ThreadLocalRandom.current().nextDouble() - 1.0);
        // The cast saturates at Long.MAX_VALUE. The cap comes after the jitter, so it is a true upper bound; a delay
        // the jitter took above it is folded back below it by as much (never below (1 - jitter) x cap, since base is
        // at most cap), so that callers whose delays all grew to the cap stay spread evenly over
        // [(1 - jitter) x cap, cap] instead of half of them retrying at the cap together.
        long jittered = Math.max(0L, (long) (base * factor));
        return jittered <= cap ? jittered : cap - Math.min(cap, jittered - cap);
    }

    /**
     * The absolute jitter: uniform in [max(base - k x spread, first), min(base + k x spread, cap)] with
     * k = floor(base / first), Spring's ExponentialBackOff scheme. first <= base <= cap, so the range is never empty
     * and always holds base; every product saturates instead of overflowing.
     */
    private long spread(long base, long first, long cap) {
        long amount;
        try {
            amount = Math.multiplyExact(jitterSpreadNanos, base / first);
        } catch (ArithmeticException tooLong) {
            amount = Long.MAX_VALUE;
        }
        long low = Math.max(base - amount, first);
        long high = base > cap - amount ? cap : Math.min(base + amount, cap);
        return low + (long) (ThreadLocalRandom.current().nextDouble() * (high - low));
    }

    private void reportRetry(int attempt, Throwable failure, long delayNanos) {
        if (!listeners.isEmpty()) {
            RetryEvent event = new RetryEvent(name, attempt, failure, Duration.ofNanos(delayNanos));
            listeners.each("retryScheduled", listener -> listener.retryScheduled(event));
        }
    }

    private void reportSuccess(int attempts) {
        if (!listeners.isEmpty()) {
            listeners.each("succeeded", listener -> listener.succeeded(attempts));
        }
    }

    private void reportFailure(int attempts, Throwable failure, boolean exhausted) {
        if (!listeners.isEmpty()) {
            listeners.each("failed", listener -> listener.failed(attempts, failure, exhausted));
        }
    }

    private boolean exhausted(Throwable failure, int attempt, CancellationSignal signal) {
        return attempt > maxRetries && !signal.isCancelled() && handles(failure);
    }

    // ---------------------------------------------------------------------------------------------------------
    // Synchronous

    @Override
    public <T, X extends Throwable> T call(Chain chain, int next, ThrowingSupplier<? extends T, X> operation,
                                           CancellationSignal signal) throws X {
        for (int attempt = 1; ; attempt++) {
            if (signal.isCancelled()) {
                CancellationException cancelled = Signals.cancelled("Retry '" + name
                        + "': the call was cancelled before attempt " + attempt, signal);
                reportFailure(attempt - 1, cancelled, false);
                throw cancelled;
            }
            T result;
            try {
                result = chain.proceed(next, operation, signal);
            } catch (Throwable failure) {
                if (!shouldRetry(failure, attempt, signal)) {
                    reportFailure(attempt, failure, exhausted(failure, attempt, signal));
                    throw Throwables.<X>rethrow(failure);
                }
                long delay = delayNanos(attempt);
                reportRetry(attempt, failure, delay);
                if (delay > 0L) {
                    try {
                        Signals.sleep(delay, signal, ticker, "Retry '" + name + "': the delay after attempt "
                                + attempt);
                    } catch (CancellationException stopped) {
                        reportFailure(attempt, stopped, false);
                        throw stopped;
                    }
                }
                continue;
            }
            if (!listeners.isEmpty()) {
                reportSuccess(attempt);
            }
            return result;
        }
    }

    // ---------------------------------------------------------------------------------------------------------
    // Asynchronous

    @Override
    public <T> CompletableFuture<T> callAsync(Chain chain, int next, Supplier<? extends CompletionStage<T>> operation,
                                              CancellationSignal signal) {
        CompletableFuture<T> result = new CompletableFuture<>();
        if (signal.isCancelled()) {
            CancellationException cancelled = Signals.cancelled("Retry '" + name
                    + "': the call was cancelled before it started", signal);
            reportFailure(0, cancelled, false);
            result.completeExceptionally(cancelled);
            return result;
        }
        CompletionStage<T> first = Stages.start(() -> chain.proceedAsync(next, operation, signal));
        if (first.getClass() == CompletableFuture.class) {
            CompletableFuture<T> done = (CompletableFuture<T>) first;
            if (done.isDone() && !done.isCompletedExceptionally()) {
                // Succeeded at once: nothing to retry, so no retry state (the common case allocates only the
                // returned future). Reported first, so metrics never lag what the caller sees.
                if (!listeners.isEmpty()) {
                    reportSuccess(1);
                }
                result.complete(done.getNow(null));
                return result;
            }
        }
        EndingFuture<T> ending = new EndingFuture<>();
        new AsyncExecution<>(this, chain, next, operation, signal, ending).start(first);
        return ending;
    }

    /**
     * The future a retrying call returns: the retry claims its end before reporting it, and a caller's
     * {@link #cancel} after the claim fails (the outcome, already reported, completes the future next), so the
     * listener and the caller never see different outcomes.
     *
     * <p>Invariant: {@link #ending} goes from 0 exactly once, by CAS: to 1 by the retry (which then reports and
     * completes), or to 2 by a cancel (which cancels; the retry then reports nothing). Dependent stages are plain
     * {@code CompletableFuture}s ({@code newIncompleteFuture} is not overridden).
     */
    static final class EndingFuture<T> extends CompletableFuture<T> {
        private static final VarHandle ENDING = VarHandles.field(MethodHandles.lookup(), "ending", int.class);

        private volatile int ending;

        /** Claims the end for the retry; {@code false} when a cancel came first or the future is done. */
        boolean claim() {
            return !isDone() && ENDING.compareAndSet(this, 0, 1);
        }

        @Override
        public boolean cancel(boolean mayInterruptIfRunning) {
            if (!ENDING.compareAndSet(this, 0, 2)) {
                return isCancelled(); // the retry's outcome was claimed first: it stands
            }
            return super.cancel(mayInterruptIfRunning);
        }
    }

    /**
     * One asynchronous call through the retry: attempts run one after another, each started when the previous one
     * failed and its delay passed.
     *
     * <p>Invariant: attempts never overlap, and {@link #drive()} is a work-in-progress trampoline: the thread that
     * moves {@link #wip} from 0 runs attempts in a loop until it brings it back to 0, so an attempt whose stage
     * fails at once (with no delay) is started by the loop, not by recursion, and no start request is lost when
     * another thread asks for the next attempt while the loop is finishing.
     */
    private static final class AsyncExecution<T> implements BiConsumer<T, Throwable>, Runnable {
        private static final VarHandle WIP = VarHandles.field(MethodHandles.lookup(), "wip", int.class);
        private static final VarHandle DELAYING = VarHandles.field(MethodHandles.lookup(), "delaying", int.class);

        private final RetryStep policy;
        private final Chain chain;
        private final int next;
        private final Supplier<? extends CompletionStage<T>> operation;
        private final CancellationSignal signal;
        private final EndingFuture<T> result;
        private volatile int attempt;
        private volatile int wip;
        /**
         * 1 while a delay is pending. The timer task and a cancellation race to bring it back to 0 by CAS; the
         * winner decides whether the next attempt starts or the call ends cancelled.
         */
        private volatile int delaying;
        private volatile Scheduler.Cancellable pendingDelay;
        private volatile CancellationSignal.Registration cancelHook;
        /**
         * The stage of the attempt started last, so that a caller who cancels the returned future while it runs
         * cancels it too (an inner bulkhead's waiter then leaves the queue instead of running for nobody).
         */
        private volatile CompletionStage<T> attemptStage;

        AsyncExecution(RetryStep policy, Chain chain, int next, Supplier<? extends CompletionStage<T>> operation,
                       CancellationSignal signal, EndingFuture<T> result) {
            this.policy = policy;
            this.chain = chain;
            this.next = next;
            this.operation = operation;
            this.signal = signal;
            this.result = result;
        }

        /** Takes over after the first attempt, whose stage was already started (and so is counted). */
        void start(CompletionStage<T> firstAttempt) {
            attempt = 1;
            if (signal.canBeCancelled()) {
                cancelHook = signal.onCancel(this::cancelledBySignal);
            }
            attemptStage = firstAttempt;
            // The caller cancelling (or completing) the returned future ends the retrying, and the attempt in flight.
            result.whenComplete((value, failure) -> callerDone());
            firstAttempt.whenComplete(this);
        }

        /**
         * Timer task: the delay passed, and ends here (a cancel from now on finds no delay to end). The next attempt
         * is the operation itself, so on the timer thread it is handed off.
         */
        @Override
        public void run() {
            if (DELAYING.compareAndSet(this, 1, 0)) {
                OffTimer.run(this::drive);
            }
        }

        private void drive() {
            if ((int) WIP.getAndAdd(this, 1) != 0) {
                return;
            }
            do {
                startAttempt();
            } while ((int) WIP.getAndAdd(this, -1) != 1);
        }

        private void startAttempt() {
            if (result.isDone()) {
                return;
            }
            if (signal.isCancelled()) {
                complete(null, Signals.cancelled("Retry '" + policy.name + "': the call was cancelled before attempt "
                        + (attempt + 1), signal), false);
                return;
            }
            // Counted when started, so that a call ending before the next attempt reports the attempts made.
            attempt++;
            CompletionStage<T> stage = Stages.start(() -> chain.proceedAsync(next, operation, signal));
            attemptStage = stage;
            if (result.isDone()) {
                Stages.cancel(stage, false); // the caller gave up while it started: its callerDone may have missed it
            }
            stage.whenComplete(this);
        }

        /** An attempt's stage completed. */
        @Override
        public void accept(T value, Throwable stageFailure) {
            int current = attempt;
            if (stageFailure == null) {
                complete(value, null, false);
                return;
            }
            Throwable failure = Stages.unwrap(stageFailure);
            if (result.isDone()) {
                return;
            }
            if (!policy.shouldRetry(failure, current, signal)) {
                complete(null, failure, policy.exhausted(failure, current, signal));
                return;
            }
            long delay = policy.delayNanos(current);
            policy.reportRetry(current, failure, delay);
            if (delay == 0L) {
                drive();
                return;
            }
            delaying = 1;
            // A Dekker pair with the signal's cancel: it marks the signal, then tries to end the delay; this marks the
            // delay, then reads the signal. A cancel that ran its hook before the delay began is seen here.
            if (signal.isCancelled()) {
                cancelledBySignal();
                return;
            }
            try {
                pendingDelay = policy.scheduler.schedule(this, delay, TimeUnit.NANOSECONDS);
            } catch (Throwable refused) {
                // Whatever the scheduler throws, the call ends here: thrown out of this stage callback, it would be
                // lost and the returned future would never complete. An Error is never swallowed: it ends the call.
                if (DELAYING.compareAndSet(this, 1, 0)) {
                    String cannot = "Retry '" + policy.name + "' could not schedule attempt " + (current + 1);
                    if (refused instanceof Error) {
                        Log.LOGGER.log(System.Logger.Level.WARNING, cannot + "; the call fails with the scheduler's "
                                + refused + " instead of this last failure", failure);
                        complete(null, refused, false);
                    } else {
                        Log.LOGGER.log(System.Logger.Level.WARNING, cannot + "; the last failure stands", refused);
                        complete(null, failure, false);
                    }
                }
                return;
            }
            if (result.isDone()) {
                stopWaiting();
            }
        }

        private void complete(T value, Throwable failure, boolean exhausted) {
            // Reported before the caller's future completes, so that metrics never lag what the caller sees. A
            // caller who gave up (cancelled the future) already ended the call: nothing more to report. The claim
            // makes a cancel landing during the report fail, so the report and the future agree.
            if (result.claim()) {
                int attempts = attempt;
                if (failure == null) {
                    if (!policy.listeners.isEmpty()) {
                        policy.reportSuccess(attempts);
                    }
                } else {
                    policy.reportFailure(attempts, failure, exhausted);
                }
                if (failure == null) {
                    result.complete(value);
                } else {
                    result.completeExceptionally(failure);
                }
            }
            stopWaiting();
        }

        private void cancelledBySignal() {
            // Only a delay ends early: a running attempt is the inner policies' business, and its failure will not
            // be retried now that the signal is cancelled.
            if (DELAYING.compareAndSet(this, 1, 0)) {
                Scheduler.Cancellable delay = pendingDelay;
                if (delay != null) {
                    delay.cancel();
                }
                complete(null, Signals.cancelled("Retry '" + policy.name + "': the call was cancelled during a delay",
                        signal), false);
            }
        }

        /**
         * The returned future completed: by {@link #complete}, after the last attempt's stage completed, or by the
         * caller giving up, whose cancel reaches the attempt in flight (cancelling a completed stage does nothing).
         */
        private void callerDone() {
            stopWaiting();
            CompletionStage<T> stage = attemptStage;
            if (stage != null) {
                Stages.cancel(stage, false);
            }
        }

        private void stopWaiting() {
            Scheduler.Cancellable delay = pendingDelay;
            if (delay != null && result.isDone()) {
                delay.cancel();
            }
            CancellationSignal.Registration hook = cancelHook;
            if (hook != null && result.isDone()) {
                hook.close();
            }
        }
    }

    @Override
    public String toString() {
        return name + ": maxRetries=" + maxRetries + (backoffInitialNanos > 0
                ? ", backoff=" + Duration.ofNanos(backoffInitialNanos) + ".." + Duration.ofNanos(backoffMaxNanos)
                + (multiplier != 2.0 ? " x" + multiplier : "")
                : ", delay=" + Duration.ofNanos(fixedDelayNanos)) + (jitter > 0 ? ", jitter=" + jitter : "")
                + (jitterSpreadNanos > 0 ? ", jitter=" + Duration.ofNanos(jitterSpreadNanos) : "")
                + (retryClosedBulkheads ? ", retryClosedBulkheads" : "");
    }
}
