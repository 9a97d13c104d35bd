package dev.bulwark.spring.internal;

import dev.bulwark.BulkheadRejectedException;
import dev.bulwark.CancellationSignal;
import dev.bulwark.Priority;
import dev.bulwark.Rejection;
import dev.bulwark.internal.util.Stages;
import java.security.Principal;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;
import org.springframework.core.Ordered;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.MediaType;
import org.springframework.http.server.reactive.ServerHttpRequest;
import org.springframework.http.server.reactive.ServerHttpResponse;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.WebFilter;
import org.springframework.web.server.WebFilterChain;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;

/**
 * The WebFlux load-shedding filter: admits each request that a route takes through the route's bulkhead, and
 * answers a refusal with the route's status, {@code Retry-After} and a problem body.
 *
 * <h2>Design notes</h2>
 * Admission is {@code callAsync} on the route's bulkhead, so a waiting request is a queue entry and no thread is ever
 * blocked, least of all a Netty event loop. A request decided at once (a free slot, a full queue) goes on
 * synchronously on its own thread. A request decided later (granted on the thread that freed a slot, refused at the
 * maximum wait on a common-pool thread) goes on on {@link #scheduler}, so neither the application nor the refusal's
 * write ever runs nested in another request's release or on the timer thread.
 *
 * <p>"At once" is the bulkhead's own outcome ({@link AtCall}), never whether the decision happens to be known when
 * the filter looks: a waiting request can be granted or refused on another thread in the instant between joining the
 * queue and {@code callAsync} returning, and it waited all the same.
 *
 * <p>Invariant: the slot is released exactly once, by {@link Admission#finish()} in a {@code doFinally} around the
 * whole admission, whichever way it ends: the response completing (the chain's {@code Mono} completes only when
 * the response is written, streamed bodies included), an error, or a cancel (the client went away). A cancel while
 * queued cancels the wait's signal, so the request leaves the queue at once; a grant that races the cancel finds the
 * release already done and hands the slot straight back.
 *
 * <p>Thread-safe; one instance serves all requests.
 */
public final class ReactiveSheddingFilter implements WebFilter, Ordered {

    private final LazyRoutes routes;
    private final int order;
    private final Scheduler scheduler;

    /**
     * Makes the filter.
     *
     * @param routes supplies the routes on first use (the routes bean, checked when the context starts)
     * @param order the filter's order
     * @param scheduler where a request decided after a wait goes on
     */
    public ReactiveSheddingFilter(Supplier<SheddingRoutes> routes, int order, Scheduler scheduler) {
        this.routes = new LazyRoutes(routes);
        this.order = order;
        this.scheduler = Objects.requireNonNull(scheduler, "scheduler");
    }

    /**
     * Returns the routes.
     *
     * @return the routes
     */
    public SheddingRoutes routes() {
        return routes.get();
    }

    @Override
    public int getOrder() {
        return order;
    }

    @Override
    public Mono<Void> filter(ServerWebExchange exchange, WebFilterChain chain) {
        ServerHttpRequest request = exchange.getRequest();
        SheddingRoutes.Match match = routes.get().match(request.getMethod().name(),
                request.getPath().pathWithinApplication());
        if (match == null) {
            return chain.filter(exchange);
        }
        SheddingRoute route = match.route();
        Map<String, String> variables = match.variables();
        KeySource source = route.keySource();
        if (source instanceof KeySource.Principal) {
            return exchange.getPrincipal().map(Principal::getName)
                    .map(name -> route.key(variables, name))
                    .defaultIfEmpty(route.key(variables, null))
                    .flatMap(key -> admit(exchange, chain, route, key));
        }
        String value = source instanceof KeySource.Header header ? request.getHeaders().getFirst(header.name())
                : null;
        return admit(exchange, chain, route, route.key(variables, value));
    }

    private Mono<Void> admit(ServerWebExchange exchange, WebFilterChain chain, SheddingRoute route, String key) {
        String keyProblem = route.keyProblem(key);
        if (keyProblem != null) {
            // Refused before it can make a partition: the client chose the key, and each key costs memory.
            return writeRefusal(exchange, Refusal.invalidKey(route, keyProblem,
                    exchange.getRequest().getPath().value()));
        }
        return Mono.defer(() -> {
            Admission admission = new Admission();
            RoutePriority priorities = route.priority();
            Priority priority = priorities.of(priorities.header() == null ? null
                    : exchange.getRequest().getHeaders().getFirst(priorities.header()));
            admission.admit(route.limiter(), key, priority).whenComplete(admission::ended);
            // Not "is the decision known yet": a grant landing right after the request queued is known, too.
            Rejection atCall = admission.decidedAtCall();
            Mono<Rejection> decision;
            if (atCall != null) {
                decision = Mono.just(atCall);
            } else {
                decision = Mono.fromFuture(admission.decision).publishOn(scheduler).doOnNext(rejection -> {
                    if (rejection == GRANTED) {
                        route.recordQueueWait(System.nanoTime() - admission.startNanos);
                    }
                });
            }
            return decision.flatMap(rejection -> rejection == GRANTED ? chain.filter(exchange)
                            : writeRefusal(exchange, Refusal.of(route, key, rejection,
                                    exchange.getRequest().getPath().value())))
                    .doFinally(signalType -> admission.finish());
        });
    }

    private static Mono<Void> writeRefusal(ServerWebExchange exchange, Refusal refusal) {
        ServerHttpResponse response = exchange.getResponse();
        if (response.isCommitted()) {
            return Mono.empty();
        }
        response.setStatusCode(HttpStatusCode.valueOf(refusal.status()));
        response.getHeaders().set("Retry-After", refusal.retryAfterHeader());
        response.getHeaders().set(Refusal.CONTENT_TYPE_OPTIONS, Refusal.NOSNIFF);
        response.getHeaders().setContentType(MediaType.parseMediaType(Refusal.PROBLEM_JSON));
        response.getHeaders().setContentLength(refusal.body().length);
        // Mono.just, not a supplier: a lambda here would be linked by the first refusal, on the server's thread.
        // The wrapped body is the refusal's own bytes, not a pooled buffer, so making it early cannot leak.
        return response.writeWith(Mono.just(response.bufferFactory().wrap(refusal.body())));
    }

    /** Stands for "granted" in an admission's decision, which otherwise carries the refusal. */
    private static final Rejection GRANTED = new Rejection("granted", Rejection.Reason.QUEUE_FULL, 0, 0, 0, 0,
            java.time.Duration.ZERO);

    /** One request's admission: the decision (granted, or the refusal) and the release. */
    private static final class Admission {
        final long startNanos = System.nanoTime();
        final CancellationSignal signal = CancellationSignal.create();
        /** Completing it releases the slot (once granted); idempotent. */
        final CompletableFuture<Void> done = new CompletableFuture<>();
        /** {@link #GRANTED} or the refusal; completed once, by the bulkhead's grant or refusal. */
        final CompletableFuture<Rejection> decision = new CompletableFuture<>();
        private volatile boolean granted;
        private final AtCall atCall = new AtCall();

        /** Asks the route's bulkhead for a slot. */
        CompletableFuture<Void> admit(RouteLimiter limiter, String key, Priority priority) {
            return atCall.admit(limiter, key, priority, this::granted, signal);
        }

        CompletionStage<Void> granted() {
            atCall.started();
            granted = true;
            decision.complete(GRANTED);
            return done; // already complete when the request was given up meanwhile: released at once
        }

        /**
         * Returns the decision the bulkhead took at the call ({@link AtCall}): {@link #GRANTED}, or a refusal. Call
         * on the request's thread, after {@link #ended} is attached to the outcome.
         *
         * @return the decision taken at the call, or {@code null} when the request waited, even if its grant or
         *     refusal is already known
         */
        Rejection decidedAtCall() {
            if (atCall.granted()) {
                return GRANTED;
            }
            Rejection refusal = decision.getNow(null);
            return refusal == null || refusal == GRANTED || !AtCall.refusedAtCall(refusal) ? null : refusal;
        }

        void ended(Void ignored, Throwable failure) {
            Throwable cause = Stages.unwrap(failure);
            if (cause instanceof BulkheadRejectedException refused) {
                decision.complete(refused.rejection());
            }
        }

        void finish() {
            if (!granted) {
                signal.cancel(); // still queued: leave the queue at once
            }
            done.complete(null);
        }
    }
}
