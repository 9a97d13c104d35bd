package dev.bulwark.reactor;

import dev.bulwark.Bulkhead;
import dev.bulwark.Policy;
import dev.bulwark.Retry;
import dev.bulwark.Timeout;
import dev.bulwark.reactor.internal.PolicyOperator;
import java.util.Objects;
import java.util.function.UnaryOperator;
import org.reactivestreams.Publisher;

/**
 * Reactor operators that run a {@code Mono} or {@code Flux} under Bulwark's policies, for use with
 * {@code transformDeferred}:
 *
 * <pre>{@code
 * Mono<Stock> stock = webClient.get().uri("/stock/{sku}", sku).retrieve().bodyToMono(Stock.class)
 *         .transformDeferred(BulwarkOperators.bulkhead(inventoryDb));
 * }</pre>
 *
 * <p>What every operator guarantees, for each subscriber:
 * <ul>
 *   <li><b>Never blocks.</b> Waiting for a bulkhead slot or a retry delay holds no thread: a subscriber that has to
 *       wait is a queue entry, and the source is subscribed on the thread that frees the slot (after a retry
 *       delay, on a thread of {@code ForkJoinPool.commonPool()} with {@link dev.bulwark.Scheduler#shared()}, never
 *       its timer thread, and on the scheduler's thread with a scheduler you gave the retry; with a bulkhead that
 *       documents threads of its own, such as {@code RedisBulkhead}'s executor, on those). Safe on Reactor's
 *       non-blocking schedulers.</li>
 *   <li><b>Cancellation.</b> Cancelling the subscription while it waits in a bulkhead's queue removes the waiter at
 *       once (its place goes to the next); cancelling it while the source runs cancels the source.</li>
 *   <li><b>Exactly once.</b> A bulkhead slot is taken before the source is subscribed and released exactly once,
 *       when the source completes, fails or is cancelled.</li>
 *   <li><b>Errors.</b> The source's own errors pass through untouched; the policy's own failures
 *       ({@link dev.bulwark.BulkheadRejectedException}, {@link dev.bulwark.TimeoutExceededException}) are signalled
 *       as errors.</li>
 * </ul>
 *
 * <p>Thread-safe; an operator instance may be shared.
 */
public final class BulwarkOperators {

    private BulwarkOperators() {
    }

    /**
     * Runs each subscription under a bulkhead: the source is subscribed once a slot is granted, and the slot is held
     * until the sequence completes, fails or is cancelled. A refused subscription ends with
     * {@link dev.bulwark.BulkheadRejectedException} and the source is never subscribed.
     *
     * @param bulkhead the bulkhead
     * @param <T> the element type
     * @return the operator; a {@code Mono} stays a {@code Mono}
     * @throws NullPointerException when {@code bulkhead} is {@code null}
     */
    public static <T> UnaryOperator<Publisher<T>> bulkhead(Bulkhead bulkhead) {
        return new PolicyOperator<>(Objects.requireNonNull(bulkhead, "bulkhead"));
    }

    /**
     * Resubscribes to the source when it fails with a failure the retry handles, after the retry's delay (a timer
     * task, not a sleeping thread), and reports to the retry's listeners. Like Reactor's {@code retryWhen}, a
     * {@code Flux} is resubscribed from the start: items of a failed attempt have already been delivered.
     *
     * @param retry the retry
     * @param <T> the element type
     * @return the operator
     * @throws NullPointerException when {@code retry} is {@code null}
     */
    public static <T> UnaryOperator<Publisher<T>> retry(Retry retry) {
        return new PolicyOperator<>(Objects.requireNonNull(retry, "retry"));
    }

    /**
     * Bounds the whole subscription, from subscribing to completion, by the timeout's duration: at the deadline the
     * source is cancelled and the subscriber gets {@link dev.bulwark.TimeoutExceededException}. (Reactor's
     * {@code Flux.timeout} bounds the gap between items instead.)
     *
     * @param timeout the timeout
     * @param <T> the element type
     * @return the operator
     * @throws NullPointerException when {@code timeout} is {@code null}
     */
    public static <T> UnaryOperator<Publisher<T>> timeout(Timeout timeout) {
        return new PolicyOperator<>(Objects.requireNonNull(timeout, "timeout"));
    }

    /**
     * Runs each subscription under any policy, a {@link dev.bulwark.Pipeline} in particular: each attempt the policy
     * makes is one subscription to the source. {@code policy(Pipeline.of(retry, timeout, bulkhead))} gives every
     * attempt its own deadline and its own bulkhead slot.
     *
     * @param policy the policy
     * @param <T> the element type
     * @return the operator
     * @throws NullPointerException when {@code policy} is {@code null}
     */
    public static <T> UnaryOperator<Publisher<T>> policy(Policy policy) {
        return new PolicyOperator<>(Objects.requireNonNull(policy, "policy"));
    }
}
