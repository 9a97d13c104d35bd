package dev.bulwark.http;

import dev.bulwark.CancellationSignal;
import dev.bulwark.Policy;
import dev.bulwark.http.internal.ClientLifecycle;
import dev.bulwark.internal.util.Stages;
import java.io.IOException;
import java.net.Authenticator;
import java.net.CookieHandler;
import java.net.ProxySelector;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.WebSocket;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;

/**
 * An {@link HttpClient} that sends every request through a Bulwark {@link Policy}: a {@link dev.bulwark.Bulkhead},
 * or a {@link dev.bulwark.Pipeline} such as {@code Pipeline.of(retry, timeout, bulkhead)}. It is an
 * {@code HttpClient} itself, so code that takes one needs no change.
 *
 * <pre>{@code
 * Bulkhead payments = Bulkhead.builder().name("payments-api").maxConcurrency(20).maxQueue(50)
 *         .maxWait(Duration.ofMillis(200)).build();
 * HttpClient client = BulwarkHttpClient.of(HttpClient.newHttpClient(), payments);
 * client.sendAsync(request, HttpResponse.BodyHandlers.ofString())
 *         .thenAccept(response -> ...);  // BulkheadRejectedException when refused; the request was not sent
 * }</pre>
 *
 * <p><b>What runs under the policy.</b> One exchange: from sending the request until the body handler has produced
 * the body (the delegate's future completing), so a slot is held while the response body is read. A retry in the
 * pipeline sends the request again. A response is a success whatever its status code; the policy sees only
 * exceptions (an {@link IOException}, a {@link java.net.http.HttpTimeoutException}, ...), untouched.
 *
 * <p><b>Cancellation.</b> Cancelling (or otherwise completing) the future {@link #sendAsync} returned, before it
 * completed, is the caller giving up: a request still queued in the bulkhead leaves the queue at once and is never
 * sent, and an exchange in flight is cancelled ({@code cancel(true)} on the delegate's future, which aborts the
 * exchange); its slot is released when the delegate's future completes. For {@link #send}, interrupting the waiting
 * thread does the same while queued and throws {@link InterruptedException}. An exchange the policy itself abandons
 * is aborted the same way: one still running when the policy has decided the call (a {@link dev.bulwark.Timeout} in
 * the pipeline failed it; a bulkhead inside keeps the slot until the exchange ends, so without the abort a hung
 * server would hold every slot), or when the policy starts the next attempt (a retry after a per-attempt timeout). That
 * attempt needs a slot first: with {@code Pipeline.of(retry, timeout, bulkhead)} and no slot to spare it waits for the
 * abandoned exchange to end, so bound each exchange with {@link HttpRequest.Builder#timeout(Duration)} (the JDK client
 * then ends it itself).
 *
 * <p><b>Refusal.</b> {@link #sendAsync} completes exceptionally with the policy's own exception (such as
 * {@link dev.bulwark.BulkheadRejectedException}); {@link #send} throws it. Nothing reaches the network.
 *
 * <p>The configuration methods ({@link #version()}, {@link #executor()}, ...) answer for the delegate; on Java 21
 * and later, {@code shutdown}, {@code shutdownNow}, {@code awaitTermination}, {@code isTerminated} and {@code close}
 * are forwarded to it. WebSockets ({@link #newWebSocketBuilder()}) are the delegate's, not under the policy.
 * Thread-safe, as the delegate is.
 */
public final class BulwarkHttpClient extends HttpClient {

    private final HttpClient delegate;
    private final Function<? super HttpRequest, ? extends Policy> policyFor;

    private BulwarkHttpClient(HttpClient delegate, Function<? super HttpRequest, ? extends Policy> policyFor) {
        this.delegate = delegate;
        this.policyFor = policyFor;
    }

    /**
     * Decorates {@code delegate} so that every request goes through {@code policy}.
     *
     * @param delegate the client that sends the requests
     * @param policy a bulkhead, or a pipeline of policies
     * @return the decorated client
     * @throws NullPointerException when an argument is {@code null}
     */
    public static BulwarkHttpClient of(HttpClient delegate, Policy policy) {
        Objects.requireNonNull(delegate, "delegate");
        Objects.requireNonNull(policy, "policy");
        return new BulwarkHttpClient(delegate, request -> policy);
    }

    /**
     * Decorates {@code delegate} so that each request goes through the policy {@code policyFor} picks for it, for
     * example a partition per host: {@code request -> hosts.forKey(request.uri().getHost())} with a
     * {@link dev.bulwark.PartitionedBulkhead}. Called once per request, on the sending thread.
     *
     * @param delegate the client that sends the requests
     * @param policyFor the policy of a request; must not return {@code null} (a {@code null} makes {@code send} and
     *     {@code sendAsync} throw {@link NullPointerException} at once, before anything is sent)
     * @return the decorated client
     * @throws NullPointerException when an argument is {@code null}
     */
    public static BulwarkHttpClient perRequest(HttpClient delegate,
                                               Function<? super HttpRequest, ? extends Policy> policyFor) {
        Objects.requireNonNull(delegate, "delegate");
        Objects.requireNonNull(policyFor, "policyFor");
        return new BulwarkHttpClient(delegate, policyFor);
    }

    /**
     * Returns the client that sends the requests.
     *
     * @return the delegate
     */
    public HttpClient delegate() {
        return delegate;
    }

    private Policy policyFor(HttpRequest request) {
        Objects.requireNonNull(request, "request");
        return Objects.requireNonNull(policyFor.apply(request), () -> "policyFor returned null for " + request);
    }

    /**
     * Sends the request under the policy, blocking the calling thread while it waits for a slot (a virtual thread
     * waits without pinning its carrier) and during the exchange.
     *
     * @throws IOException the delegate's, untouched
     * @throws InterruptedException when the thread is interrupted while queued or during the exchange
     * @throws dev.bulwark.BulkheadRejectedException when the bulkhead refused the request; it was not sent
     * @throws NullPointerException when an argument is {@code null}
     */
    @Override
    public <T> HttpResponse<T> send(HttpRequest request, HttpResponse.BodyHandler<T> responseBodyHandler)
            throws IOException, InterruptedException {
        Objects.requireNonNull(responseBodyHandler, "responseBodyHandler");
        Policy policy = policyFor(request);
        try {
            return policy.<HttpResponse<T>, Exception>call(() -> delegate.send(request, responseBodyHandler),
                    CancellationSignal.none());
        } catch (CancellationException cancelled) {
            if (cancelled.getCause() instanceof InterruptedException) {
                Thread.interrupted(); // InterruptedException is thrown with the status cleared, as send() does
                throw (InterruptedException) cancelled.getCause();
            }
            throw cancelled;
        } catch (IOException | InterruptedException | RuntimeException failure) {
            throw failure;
        } catch (Exception impossible) {
            throw new IllegalStateException("HttpClient.send threw an undeclared checked exception", impossible);
        }
    }

    /**
     * Sends the request under the policy without blocking; see the class description for cancellation.
     *
     * @return the response, or the delegate's or the policy's failure
     * @throws NullPointerException when an argument is {@code null}
     */
    @Override
    public <T> CompletableFuture<HttpResponse<T>> sendAsync(HttpRequest request,
                                                            HttpResponse.BodyHandler<T> responseBodyHandler) {
        Objects.requireNonNull(responseBodyHandler, "responseBodyHandler");
        return sendUnder(policyFor(request), () -> delegate.sendAsync(request, responseBodyHandler));
    }

    /**
     * Sends the request under the policy without blocking, accepting HTTP/2 server pushes (which are the
     * delegate's, outside the policy); see the class description for cancellation.
     *
     * @return the response, or the delegate's or the policy's failure
     * @throws NullPointerException when {@code request} or {@code responseBodyHandler} is {@code null}
     */
    @Override
    public <T> CompletableFuture<HttpResponse<T>> sendAsync(HttpRequest request,
                                                            HttpResponse.BodyHandler<T> responseBodyHandler,
                                                            HttpResponse.PushPromiseHandler<T> pushPromiseHandler) {
        Objects.requireNonNull(responseBodyHandler, "responseBodyHandler");
        return sendUnder(policyFor(request),
                () -> delegate.sendAsync(request, responseBodyHandler, pushPromiseHandler));
    }

    private <T> CompletableFuture<HttpResponse<T>> sendUnder(
            Policy policy, java.util.function.Supplier<CompletableFuture<HttpResponse<T>>> exchange) {
        CancellationSignal signal = CancellationSignal.create();
        // The exchange in flight (the latest attempt, under a retry), to cancel it when the caller gives up.
        AtomicReference<CompletableFuture<HttpResponse<T>>> inFlight = new AtomicReference<>();
        CompletableFuture<HttpResponse<T>> returned = new CompletableFuture<>();
        CompletableFuture<HttpResponse<T>> underPolicy = policy.callAsync(() -> {
            CompletableFuture<HttpResponse<T>> attempt = exchange.get();
            // The policy moved on from the previous attempt (a retry after a per-attempt timeout): nobody will read
            // that exchange any more, so abort it rather than let it hold its slot and connection until it ends.
            abortIfRunning(inFlight.getAndSet(attempt));
            // The caller may have given up between the grant and this line: it read no attempt to cancel.
            if (returned.isDone()) {
                attempt.cancel(true);
            }
            return attempt;
        }, signal);
        underPolicy.whenComplete((response, failure) -> {
            // The policy is done; an exchange still running was abandoned by it (a timeout in the pipeline fails
            // the call while the bulkhead inside keeps the slot until the exchange itself ends): abort it.
            abortIfRunning(inFlight.get());
            if (failure == null) {
                returned.complete(response);
            } else {
                returned.completeExceptionally(Stages.unwrap(failure));
            }
        });
        returned.whenComplete((response, failure) -> {
            if (!underPolicy.isDone()) {
                // The caller gave up first (cancel, orTimeout, completeExceptionally): leave the queue, abort.
                signal.cancel(failure != null ? failure : new CancellationException("the caller completed the future"));
                underPolicy.cancel(false);
                CompletableFuture<HttpResponse<T>> attempt = inFlight.get();
                if (attempt != null) {
                    attempt.cancel(true);
                }
            }
        });
        return returned;
    }

    private static void abortIfRunning(CompletableFuture<?> exchange) {
        if (exchange != null && !exchange.isDone()) {
            exchange.cancel(true); // the JDK client aborts the exchange and closes its connection
        }
    }

    /** The delegate's. */
    @Override
    public Optional<CookieHandler> cookieHandler() {
        return delegate.cookieHandler();
    }

    /** The delegate's. */
    @Override
    public Optional<Duration> connectTimeout() {
        return delegate.connectTimeout();
    }

    /** The delegate's. */
    @Override
    public Redirect followRedirects() {
        return delegate.followRedirects();
    }

    /** The delegate's. */
    @Override
    public Optional<ProxySelector> proxy() {
        return delegate.proxy();
    }

    /** The delegate's. */
    @Override
    public SSLContext sslContext() {
        return delegate.sslContext();
    }

    /** The delegate's. */
    @Override
    public SSLParameters sslParameters() {
        return delegate.sslParameters();
    }

    /** The delegate's. */
    @Override
    public Optional<Authenticator> authenticator() {
        return delegate.authenticator();
    }

    /** The delegate's. */
    @Override
    public Version version() {
        return delegate.version();
    }

    /** The delegate's. */
    @Override
    public Optional<Executor> executor() {
        return delegate.executor();
    }

    /** The delegate's WebSocket builder: WebSockets are not sent under the policy. */
    @Override
    public WebSocket.Builder newWebSocketBuilder() {
        return delegate.newWebSocketBuilder();
    }

    /** Shuts the delegate down (Java 21 and later; does nothing on earlier versions). */
    public void shutdown() {
        ClientLifecycle.shutdown(delegate);
    }

    /** Shuts the delegate down now (Java 21 and later; does nothing on earlier versions). */
    public void shutdownNow() {
        ClientLifecycle.shutdownNow(delegate);
    }

    /**
     * Waits for the delegate to terminate (Java 21 and later; returns {@code false} at once on earlier versions).
     *
     * @param duration the longest to wait
     * @return whether the delegate terminated
     * @throws InterruptedException when interrupted while waiting
     */
    public boolean awaitTermination(Duration duration) throws InterruptedException {
        return ClientLifecycle.awaitTermination(delegate, Objects.requireNonNull(duration, "duration"));
    }

    /**
     * Whether the delegate has terminated (Java 21 and later; {@code false} on earlier versions).
     *
     * @return {@code true} once the delegate terminated
     */
    public boolean isTerminated() {
        return ClientLifecycle.isTerminated(delegate);
    }

    /** Closes the delegate (Java 21 and later; does nothing on earlier versions). */
    public void close() {
        ClientLifecycle.close(delegate);
    }

    @Override
    public String toString() {
        return "BulwarkHttpClient[" + delegate + "]";
    }
}
