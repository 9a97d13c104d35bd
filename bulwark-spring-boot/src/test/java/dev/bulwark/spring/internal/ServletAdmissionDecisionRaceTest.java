package dev.bulwark.spring.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bulwark.Bulkhead;
import dev.bulwark.CancellationSignal;
import dev.bulwark.Permit;
import dev.bulwark.QueueOrder;
import jakarta.servlet.DispatcherType;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.springframework.mock.web.MockAsyncContext;
import org.springframework.mock.web.MockFilterChain;
import org.springframework.mock.web.MockHttpServletRequest;
import org.springframework.mock.web.MockHttpServletResponse;
import org.springframework.web.util.pattern.PathPatternParser;

/**
 * Forced interleavings of the servlet filter's "admitted at once, or after waiting" decision against a real
 * bulkhead: a request that joined the queue is suspended and comes back as an {@code ASYNC} dispatch, also when its
 * grant or refusal comes in the instant between joining the queue and the filter's look at the outcome (forced with
 * {@link HookedBulkhead}). Spring's servlet test doubles stand in for the container.
 */
class ServletAdmissionDecisionRaceTest {

    private final AtomicReference<Runnable> hook = new AtomicReference<>();
    private final AtomicInteger applicationRuns = new AtomicInteger();
    private final MockFilterChain application = new MockFilterChain() {
        @Override
        public void doFilter(ServletRequest request, ServletResponse response) {
            applicationRuns.incrementAndGet();
        }
    };

    private ServletSheddingFilter filterOver(Bulkhead bulkhead) {
        SheddingRoute route = new SheddingRoute(0, PathPatternParser.defaultInstance.parse("/**"), Set.of(),
                new RouteLimiter.Single(HookedBulkhead.wrap(bulkhead, hook)), new KeySource.None(), "-", 503, null,
                "about:blank", RoutePriority.NONE);
        return new ServletSheddingFilter(() -> new SheddingRoutes(List.of(route), 0), 0, null);
    }

    private static MockHttpServletRequest request() {
        MockHttpServletRequest request = new MockHttpServletRequest("GET", "/orders/1");
        request.setAsyncSupported(true);
        return request;
    }

    /** The container's answer to {@code AsyncContext.dispatch()}: the request comes back through the filter. */
    private static void asyncDispatch(ServletSheddingFilter filter, MockHttpServletRequest request,
                                      MockHttpServletResponse response, MockFilterChain chain) throws Exception {
        assertThat(((MockAsyncContext) request.getAsyncContext()).getDispatchedPath()).as("dispatched")
                .isEqualTo("/orders/1");
        request.setAsyncStarted(false);
        request.setDispatcherType(DispatcherType.ASYNC);
        filter.doFilter(request, response, chain);
    }

    @Test
    void aGrantBetweenJoiningTheQueueAndTheFiltersLookStillSuspendsTheRequest() throws Exception {
        Bulkhead bulkhead = Bulkhead.builder().name("race").maxConcurrency(1).maxQueue(1).build();
        Permit holder = bulkhead.acquire();
        hook.set(() -> HookedBulkhead.onAnotherThread("releasing-request", holder::close));
        ServletSheddingFilter filter = filterOver(bulkhead);
        MockHttpServletRequest request = request();
        MockHttpServletResponse response = new MockHttpServletResponse();

        filter.doFilter(request, response, application);

        assertThat(hook).as("the hook ran").hasValue(null);
        assertThat(applicationRuns).as("a request that waited does not run on the thread that queued it")
                .hasValue(0);
        assertThat(request.isAsyncStarted()).as("suspended").isTrue();

        asyncDispatch(filter, request, response, application);

        assertThat(applicationRuns).hasValue(1);
        assertThat(response.getStatus()).isEqualTo(200);
        assertThat(bulkhead.executingCount()).as("released when the chain returned").isZero();
    }

    @Test
    void anEvictionBetweenJoiningTheQueueAndTheFiltersLookIsAnsweredOnTheAsyncDispatch() throws Exception {
        Bulkhead bulkhead = Bulkhead.builder().name("race").maxConcurrency(1).maxQueue(1)
                .queueOrder(QueueOrder.LIFO).build();
        Permit holder = bulkhead.acquire();
        AtomicReference<CompletableFuture<Void>> newer = new AtomicReference<>();
        hook.set(() -> HookedBulkhead.onAnotherThread("evicting-request", () -> newer.set(
                bulkhead.callAsync(() -> CompletableFuture.<Void>completedFuture(null), CancellationSignal.none()))));
        ServletSheddingFilter filter = filterOver(bulkhead);
        MockHttpServletRequest request = request();
        MockHttpServletResponse response = new MockHttpServletResponse();

        filter.doFilter(request, response, application);

        assertThat(request.isAsyncStarted()).as("suspended").isTrue();
        assertThat(response.isCommitted()).as("nothing written on the thread that queued it").isFalse();

        asyncDispatch(filter, request, response, application);

        assertThat(response.getStatus()).isEqualTo(503);
        assertThat(response.getContentAsString()).contains("\"reason\":\"EVICTED\"");
        assertThat(applicationRuns).hasValue(0);
        holder.close();
        assertThat(newer.get()).succeedsWithin(Duration.ofSeconds(10));
    }

    @Test
    void aFreeSlotRunsOnTheRequestThreadWithoutSuspending() throws Exception {
        Bulkhead bulkhead = Bulkhead.builder().name("free").maxConcurrency(1).maxQueue(1).build();
        MockHttpServletRequest request = request();

        filterOver(bulkhead).doFilter(request, new MockHttpServletResponse(), application);

        assertThat(applicationRuns).hasValue(1);
        assertThat(request.isAsyncStarted()).isFalse();
        assertThat(bulkhead.executingCount()).isZero();
    }
}
