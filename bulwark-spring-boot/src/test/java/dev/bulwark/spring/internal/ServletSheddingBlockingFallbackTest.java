package dev.bulwark.spring.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.bulwark.Bulkhead;
import dev.bulwark.Permit;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.springframework.mock.web.MockFilterChain;
import org.springframework.mock.web.MockHttpServletRequest;
import org.springframework.mock.web.MockHttpServletResponse;
import org.springframework.web.util.pattern.PathPatternParser;

/**
 * The filter's fallback for a request whose container cannot suspend it ({@code isAsyncSupported()} false): the
 * request thread parks while it waits, and an interrupt of that thread abandons the wait. Spring's servlet test
 * doubles stand in for the container, as they do for Spring's own filters.
 */
class ServletSheddingBlockingFallbackTest {

    private final Bulkhead bulkhead = Bulkhead.builder().name("blocking").maxConcurrency(1).maxQueue(1).build();
    private final SheddingRoute route = new SheddingRoute(0, PathPatternParser.defaultInstance.parse("/**"), Set.of(),
            new RouteLimiter.Single(bulkhead), new KeySource.None(), "-", 503, null, "about:blank",
            RoutePriority.NONE);
    private final ServletSheddingFilter filter =
            new ServletSheddingFilter(() -> new SheddingRoutes(List.of(route), 0), 0, null);

    private static MockHttpServletRequest blockingRequest() {
        MockHttpServletRequest request = new MockHttpServletRequest("GET", "/orders/1");
        request.setAsyncSupported(false);
        return request;
    }

    /**
     * Sends a request through the filter on its own thread and waits until it is parked in the queue.
     *
     * @param application what the application does when the request is admitted
     * @return the request's thread, and what completes once the filter returns: whether its interrupt is set
     */
    private Parked parkedRequest(MockHttpServletResponse response, Runnable application) {
        CompletableFuture<Boolean> returned = new CompletableFuture<>();
        Thread requestThread = new Thread(() -> {
            try {
                filter.doFilter(blockingRequest(), response, new MockFilterChain() {
                    @Override
                    public void doFilter(jakarta.servlet.ServletRequest req, jakarta.servlet.ServletResponse res) {
                        application.run();
                    }
                });
                returned.complete(Thread.currentThread().isInterrupted());
            } catch (Throwable failure) {
                returned.completeExceptionally(failure);
            }
        }, "request");
        requestThread.start();
        await().atMost(Duration.ofSeconds(10)).until(() -> bulkhead.queuedCount() == 1);
        return new Parked(requestThread, returned);
    }

    private record Parked(Thread thread, CompletableFuture<Boolean> returned) {
    }

    @Test
    void anInterruptedWaitIsAnsweredWithTheRefusalAndLeavesTheQueue() throws Exception {
        Permit holder = bulkhead.acquire();
        MockHttpServletResponse response = new MockHttpServletResponse();
        AtomicBoolean applicationRan = new AtomicBoolean();
        Parked request = parkedRequest(response, () -> applicationRan.set(true));

        request.thread().interrupt();

        assertThat(request.returned().get(10, TimeUnit.SECONDS)).as("the thread's interrupt is restored").isTrue();
        assertThat(response.getStatus()).as("answered, not an empty 200").isEqualTo(503);
        assertThat(response.getHeader("Retry-After")).isNotNull();
        assertThat(response.getContentAsString()).contains("\"reason\":\"WAIT_TIMEOUT\"")
                .contains("\"bulkhead\":\"blocking\"");
        assertThat(bulkhead.queuedCount()).as("left the queue").isZero();
        holder.close();
        assertThat(applicationRan).as("a slot freed later is not given to the abandoned request").isFalse();
        assertThat(bulkhead.executingCount()).isZero();
    }

    @Test
    void aGrantWakesTheParkedThreadWhichRunsTheApplicationAndReleases() throws Exception {
        Permit holder = bulkhead.acquire();
        MockHttpServletResponse response = new MockHttpServletResponse();
        CompletableFuture<Integer> executingWhileRunning = new CompletableFuture<>();
        Parked request = parkedRequest(response, () -> executingWhileRunning.complete(bulkhead.executingCount()));

        holder.close();

        request.returned().get(10, TimeUnit.SECONDS);
        assertThat(executingWhileRunning.get()).isEqualTo(1);
        assertThat(response.getStatus()).isEqualTo(200);
        assertThat(bulkhead.executingCount()).as("released when the chain returned").isZero();
    }
}
