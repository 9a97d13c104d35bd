package dev.bulwark.spring.internal;

import dev.bulwark.Bulkhead;
import dev.bulwark.testing.FreshJvm;
import dev.bulwark.testing.FreshJvmRace;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.springframework.mock.http.server.reactive.MockServerHttpRequest;
import org.springframework.mock.web.MockFilterChain;
import org.springframework.mock.web.MockHttpServletRequest;
import org.springframework.mock.web.MockHttpServletResponse;
import org.springframework.mock.web.server.MockServerWebExchange;
import org.springframework.web.util.pattern.PathPatternParser;
import reactor.core.publisher.Mono;

/**
 * A fresh JVM's first requests through both load-shedding filters, raced (the child program of
 * {@link SheddingFirstUseRaceTest}): Spring's test doubles stand in for the servlet container and the reactive
 * server, as they do for Spring's own filters, so that no application has to start. The routes are made, and their
 * bulkheads filled, before one latch releases a thread per entry point; then each filter's first admitted request,
 * first refusal for a full queue and first refusal after a wait, and the refusal's rendering itself, run and
 * initialise this module's classes at the same moment. Only a hang or an unexpected answer fails.
 */
public final class SheddingFirstUseRace {

    private SheddingFirstUseRace() {
    }

    /**
     * Runs the race.
     *
     * @param args none
     * @throws Exception never expected
     */
    public static void main(String[] args) throws Exception {
        FreshJvm.watchdog(Duration.ofSeconds(40));
        SheddingRoute free = route("/free/**", Bulkhead.builder().name("free").maxConcurrency(8).build());
        Bulkhead fullBulkhead = Bulkhead.builder().name("full").maxConcurrency(1).maxQueue(0).build();
        fullBulkhead.acquire();
        SheddingRoute full = route("/full/**", fullBulkhead);
        Bulkhead queueBulkhead = Bulkhead.builder().name("queue").maxConcurrency(1).maxQueue(4)
                .maxWait(Duration.ofMillis(100)).build();
        queueBulkhead.acquire();
        SheddingRoute queue = route("/queue/**", queueBulkhead);
        SheddingRoutes routes = new SheddingRoutes(List.of(free, full, queue), 0);
        // What the routes bean does at startup (a no-op with -Ddev.bulwark.rehearseFirstUse=false).
        Refusal.rehearse(free);
        ServletSheddingFilter servlet = new ServletSheddingFilter(() -> routes, 0, null);
        ReactiveSheddingFilter reactive = new ReactiveSheddingFilter(() -> routes, 0,
                reactor.core.scheduler.Schedulers.parallel());

        List<Runnable> callers = new ArrayList<>();
        callers.add(() -> expect(servlet(servlet, "/free/1"), 200));
        callers.add(() -> expect(servlet(servlet, "/full/1"), 503));
        // A request its container cannot suspend waits on its thread: refused after the 100 ms max wait.
        callers.add(() -> expect(servlet(servlet, "/queue/1"), 503));
        callers.add(() -> expect(reactive(reactive, "/free/2"), 200));
        callers.add(() -> expect(reactive(reactive, "/full/2"), 503));
        callers.add(() -> expect(reactive(reactive, "/queue/2"), 503));
        callers.add(() -> Refusal.of(full, "", new dev.bulwark.Rejection("full", dev.bulwark.Rejection.Reason.EVICTED,
                1, 0, 1, 0, Duration.ofMillis(3)), "/full/3"));
        FreshJvmRace.race(callers, Duration.ofSeconds(20));
        System.exit(0);
    }

    private static SheddingRoute route(String pattern, Bulkhead bulkhead) {
        return new SheddingRoute(0, PathPatternParser.defaultInstance.parse(pattern), Set.of(),
                new RouteLimiter.Single(bulkhead), new KeySource.None(), "-", 503, null, "about:blank",
                RoutePriority.NONE);
    }

    private static int servlet(ServletSheddingFilter filter, String path) {
        MockHttpServletRequest request = new MockHttpServletRequest("GET", path);
        request.setAsyncSupported(false);
        MockHttpServletResponse response = new MockHttpServletResponse();
        try {
            filter.doFilter(request, response, new MockFilterChain());
        } catch (Exception e) {
            throw new AssertionError(path, e);
        }
        return response.getStatus();
    }

    private static int reactive(ReactiveSheddingFilter filter, String path) {
        MockServerWebExchange exchange = MockServerWebExchange.from(MockServerHttpRequest.get(path));
        filter.filter(exchange, ignored -> Mono.empty()).block(Duration.ofSeconds(10));
        return exchange.getResponse().getStatusCode() == null ? 200 : exchange.getResponse().getStatusCode().value();
    }

    private static void expect(int status, int expected) {
        if (status != expected) {
            throw new AssertionError("answered " + status + " instead of " + expected);
        }
    }
}
