package dev.bulwark;

import dev.bulwark.internal.HandledFailures;
import dev.bulwark.internal.util.ListenerList;
import dev.bulwark.internal.Signals;
import dev.bulwark.internal.Throwables;
import dev.bulwark.internal.util.Stages;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Consumer;
import java.util.function.Predicate;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * Turns a handled failure into a value. Typed by its result, so it wraps a call rather than being one of a
 * pipeline's result-agnostic steps — typically around a pipeline:
 * {@code Fallback.of("busy").call(() -> pipeline.call(op))}. A fallback value of the wrong type does not compile.
 *
 * <p>Without {@link #handle} or {@link #handleIf} every {@link Exception} is handled (so
 * {@link BulkheadRejectedException} and {@link TimeoutExceededException} are) except a
 * {@link CancellationException} and an {@link InterruptedException} (the thread was asked to stop; it passes
 * through, so the caller still learns of the interrupt). Unhandled failures, {@link Error}s among them, pass
 * through untouched.
 * A call whose signal was cancelled is never turned into a value.
 *
 * <p>Immutable and thread-safe: {@link #handle}, {@link #handleIf} and {@link #onFallback} return new instances.
 *
 * @param <T> the result type
 */
public final class Fallback<T extends @Nullable Object> {

    private final ThrowingFunction<? super Throwable, ? extends T, ? extends RuntimeException> function;
    private final List<Class<? extends Throwable>> handledTypes;
    private final List<Predicate<? super Throwable>> handledIf;
    private final List<Consumer<? super Throwable>> callbacks;
    private final ListenerList<Consumer<? super Throwable>> listeners;

    private Fallback(ThrowingFunction<? super Throwable, ? extends T, ? extends RuntimeException> function,
                     List<Class<? extends Throwable>> handledTypes, List<Predicate<? super Throwable>> handledIf,
                     List<Consumer<? super Throwable>> callbacks) {
        this.function = function;
        this.handledTypes = List.copyOf(handledTypes);
        this.handledIf = List.copyOf(handledIf);
        this.callbacks = List.copyOf(callbacks);
        this.listeners = new ListenerList<>("dev.bulwark", "", "fallback", this.callbacks);
    }

    /**
     * Falls back to a fixed value.
     *
     * @param value the value returned instead of a handled failure; may be {@code null}
     * @param <T> the result type
     * @return a new fallback
     */
    public static <T extends @Nullable Object> Fallback<T> of(T value) {
        return new Fallback<>(failure -> value, List.of(), List.of(), List.of());
    }

    /**
     * Falls back to a value computed from the failure. The function may throw unchecked exceptions, which then
     * reach the caller instead of the failure (a checked exception would need a second type parameter on
     * {@code Fallback}; filter with {@link #handle}/{@link #handleIf} to let a failure through instead).
     *
     * @param function computes the value from the handled failure
     * @param <T> the result type
     * @return a new fallback
     * @throws NullPointerException when {@code function} is {@code null}
     */
    public static <T extends @Nullable Object> Fallback<T> to(
            ThrowingFunction<? super Throwable, ? extends T, ? extends RuntimeException> function) {
        return new Fallback<>(Objects.requireNonNull(function, "function"), List.of(), List.of(), List.of());
    }

    /**
     * Returns a fallback that also handles failures of these types.
     *
     * @param types failure types to handle
     * @return a new fallback
     * @throws NullPointerException when {@code types} or one of them is {@code null}
     * @throws IllegalArgumentException when no type is given
     */
    @SafeVarargs
    public final Fallback<T> handle(Class<? extends Throwable>... types) {
        Objects.requireNonNull(types, "types");
        if (types.length == 0) {
            throw new IllegalArgumentException("types must name at least one failure type");
        }
        List<Class<? extends Throwable>> more = new ArrayList<>(handledTypes);
        for (int i = 0; i < types.length; i++) {
            more.add(Objects.requireNonNull(types[i], "types[" + i + "]"));
        }
        return new Fallback<>(function, more, handledIf, callbacks);
    }

    /**
     * Returns a fallback that also handles failures matching this predicate. A predicate that throws (an
     * {@link Error} included) counts as not matching, on the synchronous and the asynchronous path alike; its
     * failure is logged.
     *
     * @param predicate selects failures to handle
     * @return a new fallback
     * @throws NullPointerException when {@code predicate} is {@code null}
     */
    public Fallback<T> handleIf(Predicate<? super Throwable> predicate) {
        List<Predicate<? super Throwable>> more = new ArrayList<>(handledIf);
        more.add(Objects.requireNonNull(predicate, "predicate"));
        return new Fallback<>(function, handledTypes, more, callbacks);
    }

    /**
     * Returns a fallback that calls {@code callback} with each failure it turns into a value (the "fallback used"
     * event), before computing the value. A callback that throws never changes the outcome.
     *
     * @param callback told of each handled failure
     * @return a new fallback
     * @throws NullPointerException when {@code callback} is {@code null}
     */
    public Fallback<T> onFallback(Consumer<? super Throwable> callback) {
        List<Consumer<? super Throwable>> more = new ArrayList<>(callbacks);
        more.add(Objects.requireNonNull(callback, "callback"));
        return new Fallback<>(function, handledTypes, handledIf, more);
    }

    /**
     * Runs {@code operation} and returns its result, or the fallback value when it fails with a handled failure.
     *
     * @param operation the operation, typically a call through a pipeline
     * @param <X> the operation's checked exception
     * @return the result or the fallback value
     * @throws X an unhandled failure of the operation, untouched
     * @throws NullPointerException when {@code operation} is {@code null}
     */
    public <X extends Throwable> T call(ThrowingSupplier<? extends T, X> operation) throws X {
        return call(operation, CancellationSignal.none());
    }

    /**
     * Runs {@code operation} and returns its result, or the fallback value when it fails with a handled failure
     * while {@code signal} is not cancelled.
     *
     * @param operation the operation, typically a call through a pipeline given the same signal
     * @param signal the caller's signal
     * @param <X> the operation's checked exception
     * @return the result or the fallback value
     * @throws X an unhandled failure of the operation, untouched
     * @throws CancellationException when {@code signal} is cancelled before the call
     * @throws NullPointerException when an argument is {@code null}
     */
    public <X extends Throwable> T call(ThrowingSupplier<? extends T, X> operation, CancellationSignal signal)
            throws X {
        Objects.requireNonNull(operation, "operation");
        Objects.requireNonNull(signal, "signal");
        if (signal.isCancelled()) {
            throw Signals.cancelled("Fallback: the call was cancelled before it started", signal);
        }
        try {
            return operation.get();
        } catch (Throwable failure) {
            if (!handles(failure, signal)) {
                throw Throwables.<X>rethrow(failure);
            }
            return fallBack(failure);
        }
    }

    /**
     * Runs an asynchronous operation; a handled failure of its stage completes the returned future with the
     * fallback value instead.
     *
     * @param operation supplies the stage
     * @return a new future
     * @throws NullPointerException when {@code operation} is {@code null}
     */
    public CompletableFuture<T> callAsync(Supplier<? extends CompletionStage<? extends T>> operation) {
        return callAsync(operation, CancellationSignal.none());
    }

    /**
     * Runs an asynchronous operation; a handled failure of its stage, while {@code signal} is not cancelled,
     * completes the returned future with the fallback value instead.
     *
     * @param operation supplies the stage
     * @param signal the caller's signal
     * @return a new future
     * @throws NullPointerException when an argument is {@code null}
     */
    public CompletableFuture<T> callAsync(Supplier<? extends CompletionStage<? extends T>> operation,
                                          CancellationSignal signal) {
        Objects.requireNonNull(operation, "operation");
        Objects.requireNonNull(signal, "signal");
        CompletableFuture<T> result = new CompletableFuture<>();
        if (signal.isCancelled()) {
            result.completeExceptionally(Signals.cancelled("Fallback: the call was cancelled before it started",
                    signal));
            return result;
        }
        Stages.<T>start(() -> operation.get().thenApply(value -> (T) value)).whenComplete((value, stageFailure) -> {
            if (stageFailure == null) {
                result.complete(value);
                return;
            }
            Throwable failure = Stages.unwrap(stageFailure);
            if (!handles(failure, signal)) {
                result.completeExceptionally(failure);
                return;
            }
            try {
                result.complete(fallBack(failure));
            } catch (Throwable fallbackFailure) {
                result.completeExceptionally(fallbackFailure);
            }
        });
        return result;
    }

    private T fallBack(Throwable failure) {
        if (!listeners.isEmpty()) {
            listeners.each("fallbackUsed", callback -> callback.accept(failure));
        }
        return function.apply(failure);
    }

    private boolean handles(Throwable failure, CancellationSignal signal) {
        if (signal.isCancelled()) {
            return false;
        }
        if (handledTypes.isEmpty() && handledIf.isEmpty()) {
            // An InterruptedException asks the thread to stop: a value in its place would swallow the request.
            return failure instanceof Exception && !(failure instanceof CancellationException)
                    && !(failure instanceof InterruptedException);
        }
        return HandledFailures.matches(failure, handledTypes, handledIf, System.getLogger("dev.bulwark.Fallback"), "");
    }

    /**
     * Describes the failures the fallback handles: by default every {@link Exception} except a
     * {@link CancellationException} and an {@link InterruptedException}; else the types given to {@link #handle}, by
     * class name, and the number of predicates given to {@link #handleIf}. Never throws; thread-safe (the fallback
     * is immutable).
     *
     * @return a description such as {@code Fallback[handles java.io.IOException and failures matching 1 predicate]}
     */
    @Override
    public String toString() {
        if (handledTypes.isEmpty() && handledIf.isEmpty()) {
            return "Fallback[handles every Exception except CancellationException and InterruptedException]";
        }
        StringBuilder text = new StringBuilder("Fallback[handles ");
        for (int i = 0; i < handledTypes.size(); i++) {
            text.append(i == 0 ? "" : ", ").append(handledTypes.get(i).getName());
        }
        if (!handledIf.isEmpty()) {
            int predicates = handledIf.size();
            text.append(handledTypes.isEmpty() ? "" : " and ").append("failures matching ")
                    .append(predicates == 1 ? "1 predicate" : "any of " + predicates + " predicates");
        }
        return text.append(']').toString();
    }
}
