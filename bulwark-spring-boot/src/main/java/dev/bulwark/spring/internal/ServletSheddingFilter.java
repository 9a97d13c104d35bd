package dev.bulwark.spring.internal;

import dev.bulwark.Rejection;
import jakarta.servlet.AsyncContext;
import jakarta.servlet.AsyncEvent;
import jakarta.servlet.AsyncListener;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.security.Principal;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;
import org.springframework.core.Ordered;
import org.springframework.http.server.RequestPath;
import org.springframework.web.filter.OncePerRequestFilter;

/**
 * The Spring MVC (servlet) load-shedding filter: admits each request that a route takes through the route's
 * bulkhead, and answers a refusal with the route's status, {@code Retry-After} and a problem body.
 *
 * <h2>Design notes</h2>
 * A request that gets a slot at once runs on its own container thread, as without the filter. A request that must
 * wait is <em>suspended</em> with the servlet async API: its container thread goes back to the pool and the request
 * is a queue entry only. The grant (on the thread that frees a slot) or the refusal (a full queue, or the
 * bulkhead's maximum wait, on a common-pool thread) calls {@link AsyncContext#dispatch()}, and the request comes back
 * through this filter on a container thread as an {@code ASYNC} dispatch, where it runs the application or writes
 * the refusal: neither ever runs on the thread that freed the slot or on the timer thread. Whether a request got its
 * slot at once is the bulkhead's own outcome ({@link AtCall}), not whether its grant is known by the time the filter
 * looks: a grant can land in the instant after the request queued, and that request is suspended all the same. The
 * async timeout ({@code bulwark.shedding.servlet.async-timeout}, else the container's) and a container-reported
 * error make the waiter leave the queue at once. {@link ServletAdmission} holds the state machine and its
 * invariants.
 *
 * <p>The slot is held until the request is done: when the chain returns, or, when the application went async
 * itself (a {@code DeferredResult}, {@code Callable}, {@code StreamingResponseBody}, {@code SseEmitter}), when that
 * async cycle completes. It is released exactly once.
 *
 * <p>Thread-safe; one instance serves all requests.
 */
public final class ServletSheddingFilter extends OncePerRequestFilter implements Ordered {

    /** The request attribute that carries a request's admission across its dispatches. */
    static final String ADMISSION = ServletSheddingFilter.class.getName() + ".admission";

    private final LazyRoutes routes;
    private final int order;
    private final Duration asyncTimeout;

    /**
     * Makes the filter.
     *
     * @param routes supplies the routes on first use (the routes bean, checked when the context starts)
     * @param order the filter's order
     * @param asyncTimeout how long a request may wait suspended, or {@code null} for the container's async timeout
     */
    public ServletSheddingFilter(Supplier<SheddingRoutes> routes, int order, Duration asyncTimeout) {
        this.routes = new LazyRoutes(routes);
        this.order = order;
        this.asyncTimeout = asyncTimeout;
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
    protected boolean shouldNotFilterAsyncDispatch() {
        return false; // a queued request comes back here when its wait ends
    }

    @Override
    protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
            throws ServletException, IOException {
        Object existing = request.getAttribute(ADMISSION);
        if (existing instanceof ServletAdmission admission && isAsyncDispatch(request)) {
            resume(admission, request, response, chain);
            return;
        }
        SheddingRoutes.Match match = routes.get().match(request.getMethod(),
                RequestPath.parse(request.getRequestURI(), request.getContextPath()).pathWithinApplication());
        if (match == null) {
            chain.doFilter(request, response);
            return;
        }
        SheddingRoute route = match.route();
        RoutePriority priorities = route.priority();
        String key = route.key(match.variables(), keyValue(route, request));
        String keyProblem = route.keyProblem(key);
        if (keyProblem != null) {
            // Refused before it can make a partition: the client chose the key, and each key costs memory.
            writeRefusal(response, Refusal.invalidKey(route, keyProblem, request.getRequestURI()));
            return;
        }
        ServletAdmission admission = new ServletAdmission(route, key,
                priorities.of(priorities.header() == null ? null : request.getHeader(priorities.header())),
                request.getRequestURI());
        request.setAttribute(ADMISSION, admission);
        admission.admit();
        // Not "is the state still WAITING": a grant landing right after the request queued moves it, too, and such a
        // request is suspended and dispatched like any that waited (suspend() sees the grant and dispatches at once).
        boolean queued = !admission.decidedAtCall();
        if (queued) {
            if (request.isAsyncSupported()) {
                // With this filter's request and response, as Spring MVC does, so that the dispatch that resumes
                // the request carries the wrappers of the filters before this one.
                AsyncContext context = request.startAsync(request, response);
                if (asyncTimeout != null) {
                    context.setTimeout(asyncTimeout.toMillis());
                }
                context.addListener(admission);
                admission.suspend(context);
                return;
            }
            Rejection abandoned = admission.awaitDecision();
            if (abandoned != null) {
                // Interrupted while waiting: answered as a wait the container ended, then the interrupt is restored.
                try {
                    writeRefusal(response, Refusal.of(route, admission.key, abandoned, admission.instance));
                } finally {
                    Thread.currentThread().interrupt();
                }
                return;
            }
        }
        act(admission, request, response, chain, queued);
    }

    /** A dispatch of a request this filter admitted or suspended. */
    private void resume(ServletAdmission admission, HttpServletRequest request, HttpServletResponse response,
                        FilterChain chain) throws ServletException, IOException {
        if (admission.state() == ServletAdmission.RUNNING) {
            // The application's own async dispatch (e.g. a DeferredResult's result): already admitted.
            chain.doFilter(request, response);
            return;
        }
        act(admission, request, response, chain, true);
    }

    /** Runs the application for a granted request or writes the refusal, whichever the state says. */
    private void act(ServletAdmission admission, HttpServletRequest request, HttpServletResponse response,
                     FilterChain chain, boolean queued) throws ServletException, IOException {
        int state = admission.state();
        if (state == ServletAdmission.GRANTED && admission.claim(ServletAdmission.GRANTED, ServletAdmission.RUNNING)) {
            if (queued) {
                admission.route.recordQueueWait(System.nanoTime() - admission.startNanos);
            }
            runAdmitted(admission, request, response, chain);
        } else if (state == ServletAdmission.REFUSED
                && admission.claim(ServletAdmission.REFUSED, ServletAdmission.ABANDONED)) {
            writeRefusal(response, Refusal.of(admission.route, admission.key, admission.rejection(),
                    admission.instance));
        }
        // Otherwise ABANDONED: the container's timeout or error already answered and released.
    }

    private static void runAdmitted(ServletAdmission admission, HttpServletRequest request,
                                    HttpServletResponse response, FilterChain chain)
            throws ServletException, IOException {
        try {
            chain.doFilter(request, response);
        } finally {
            if (request.isAsyncStarted()) {
                request.getAsyncContext().addListener(new ReleaseOnComplete(admission.done));
            } else {
                admission.done.complete(null);
            }
        }
    }

    private static String keyValue(SheddingRoute route, HttpServletRequest request) {
        KeySource source = route.keySource();
        if (source instanceof KeySource.Header header) {
            return request.getHeader(header.name());
        }
        if (source instanceof KeySource.Principal) {
            Principal principal = request.getUserPrincipal();
            return principal == null ? null : principal.getName();
        }
        return null;
    }

    static void writeRefusal(HttpServletResponse response, Refusal refusal) throws IOException {
        if (response.isCommitted()) {
            return;
        }
        response.resetBuffer();
        response.setStatus(refusal.status());
        response.setHeader("Retry-After", refusal.retryAfterHeader());
        response.setHeader(Refusal.CONTENT_TYPE_OPTIONS, Refusal.NOSNIFF);
        response.setContentType(Refusal.PROBLEM_JSON);
        response.setContentLength(refusal.body().length);
        response.getOutputStream().write(refusal.body());
        response.flushBuffer();
    }

    /**
     * Releases the slot when the application's async processing completes; follows the request into any further
     * async cycle (the servlet API drops a listener at a new {@code startAsync} unless it re-registers).
     */
    private static final class ReleaseOnComplete implements AsyncListener {
        private final CompletableFuture<Void> done;

        ReleaseOnComplete(CompletableFuture<Void> done) {
            this.done = done;
        }

        @Override
        public void onComplete(AsyncEvent event) {
            done.complete(null);
        }

        @Override
        public void onTimeout(AsyncEvent event) {
            // The application's error handling runs next and completes the cycle: released on completion.
        }

        @Override
        public void onError(AsyncEvent event) {
            // Followed by completion, which releases.
        }

        @Override
        public void onStartAsync(AsyncEvent event) {
            event.getAsyncContext().addListener(this);
        }
    }
}
