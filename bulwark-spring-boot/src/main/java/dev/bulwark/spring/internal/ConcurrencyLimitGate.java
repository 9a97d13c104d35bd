package dev.bulwark.spring.internal;

import dev.bulwark.Bulkhead;
import dev.bulwark.BulkheadRejectedException;
import dev.bulwark.Rejection;
import java.util.concurrent.CancellationException;
import org.aopalliance.intercept.MethodInvocation;

/**
 * One throttle of Spring's {@code @ConcurrencyLimit}, served by a Bulwark bulkhead: the throttle of one method (or,
 * for an annotation on the class, of all its methods) of one bean instance, as in Spring. Refusals reach the caller
 * as Spring's {@code InvocationRejectedException}, with Spring's messages and, when Bulwark refused, its
 * {@link BulkheadRejectedException} as the cause. Like Spring's, the throttle covers the method's own execution, not
 * the completion of a {@code CompletableFuture} or {@code Mono} it returns. Thread-safe.
 */
final class ConcurrencyLimitGate {

    /** Spring's {@code ConcurrencyThrottleSupport.UNBOUNDED_CONCURRENCY}. */
    static final int UNBOUNDED = -1;
    /** Spring's {@code ConcurrencyThrottleSupport.NO_CONCURRENCY}. */
    static final int NONE = 0;

    private final String identifier;
    private final int limit;
    private final boolean reject;
    private final Bulkhead bulkhead;

    /**
     * @param identifier Spring's name of the throttle in its messages: the qualified method name, or the class name
     * @param limit the annotation's limit: {@link #UNBOUNDED}, {@link #NONE} or positive
     * @param reject whether the policy is {@code REJECT}
     * @param bulkhead the bulkhead for a positive limit, else {@code null}
     */
    ConcurrencyLimitGate(String identifier, int limit, boolean reject, Bulkhead bulkhead) {
        this.identifier = identifier;
        this.limit = limit;
        this.reject = reject;
        this.bulkhead = bulkhead;
    }

    Bulkhead bulkhead() {
        return bulkhead;
    }

    /**
     * Runs the invocation within the limit.
     *
     * @param instance the proxy, named in the refusal as Spring names it
     */
    Object call(MethodInvocation invocation, Object instance) throws Throwable {
        if (limit == UNBOUNDED) {
            return invocation.proceed();
        }
        if (limit == NONE) {
            throw SpringResilience.rejected("Concurrency limit set to NO_CONCURRENCY - not allowed to enter "
                    + identifier, instance, null);
        }
        // Set on the calling thread before the method runs: a refusal or cancellation thrown after that is the
        // method's own and passes through untouched.
        boolean[] started = new boolean[1];
        try {
            return bulkhead.call(() -> {
                started[0] = true;
                return invocation.proceed();
            });
        } catch (BulkheadRejectedException refused) {
            if (started[0]) {
                throw refused;
            }
            // REJECT's refusal reads exactly as Spring's; the refusals Spring does not have (a full bounded queue, the
            // maximum wait, a draining bulkhead) name their reason.
            String why = reject && refused.rejection().reason() == Rejection.Reason.QUEUE_FULL
                    ? "Concurrency limit reached: " + limit
                    : "Concurrency limit reached: " + limit + " (" + refused.rejection().reason() + ")";
            throw SpringResilience.rejected(why + " - not allowed to enter " + identifier, instance, refused);
        } catch (CancellationException interrupted) {
            if (started[0]) {
                throw interrupted;
            }
            // Bulwark restored the interrupt status, as Spring's throttle does.
            throw SpringResilience.rejected("Thread was interrupted while waiting for access but concurrency limit "
                    + "still does not allow for entering " + identifier, instance, interrupted);
        }
    }
}
