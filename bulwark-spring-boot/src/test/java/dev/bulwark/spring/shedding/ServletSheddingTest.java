package dev.bulwark.spring.shedding;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.bulwark.Bulkhead;
import dev.bulwark.spring.internal.ServletSheddingFilter;
import dev.bulwark.testing.CountingListener;
import java.net.http.HttpResponse;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/** The load-shedding contract on Spring MVC (Tomcat), plus what only the servlet filter has. */
class ServletSheddingTest extends SheddingContract {

    @Override
    RunningApp start(String... properties) {
        RunningApp app = RunningApp.servlet(properties);
        assertThat(app.bean(ServletSheddingFilter.class)).isNotNull();
        return app;
    }

    @Override
    String disconnectAsyncTimeout() {
        return "500ms"; // Tomcat does not watch the connection of a suspended request: the async timeout ends it
    }

    @Test
    void theServletAsyncTimeoutMakesAQueuedRequestLeaveTheQueue() {
        try (RunningApp app = start("bulwark.bulkheads.api.max-concurrency=1", "bulwark.bulkheads.api.max-queue=1",
                "bulwark.shedding.routes[0].pattern=/api/**", "bulwark.shedding.routes[0].bulkhead=api",
                "bulwark.shedding.servlet.async-timeout=300ms")) {
            Bulkhead api = app.bulkhead("api");
            CountingListener counts = new CountingListener();
            api.addListener(counts);
            CompletableFuture<HttpResponse<String>> holder = app.get("/api/hold/1");
            await().until(() -> app.gate().entered() == 1);

            HttpResponse<String> timedOut = answer(app.get("/api/hold/2"));
            assertThat(timedOut.statusCode()).isEqualTo(503);
            assertThat(timedOut.body()).contains("\"reason\":\"WAIT_TIMEOUT\"", "\"bulkhead\":\"api\"",
                    "\"queued\":0");
            assertThat(api.queuedCount()).isZero();
            assertThat(counts.cancelled).hasValue(1);

            app.gate().release("1");
            assertThat(answer(holder).statusCode()).isEqualTo(200);
            await().until(() -> counts.released.get() == 1);
            assertThat(app.gate().entered()).isEqualTo(1);
        }
    }

    @Test
    void aBlockingHandlerHoldsItsSlotUntilItReturns() {
        try (RunningApp app = start("bulwark.bulkheads.api.max-concurrency=2",
                "bulwark.shedding.routes[0].pattern=/api/**", "bulwark.shedding.routes[0].bulkhead=api")) {
            Bulkhead api = app.bulkhead("api");
            CompletableFuture<HttpResponse<String>> first = app.get("/api/sync/1");
            CompletableFuture<HttpResponse<String>> second = app.get("/api/sync/2");
            await().until(() -> app.gate().entered() == 2);
            assertThat(api.executingCount()).isEqualTo(2);
            assertThat(answer(app.get("/api/now")).statusCode()).isEqualTo(503);

            app.gate().releaseAll();
            assertThat(answer(first).body()).isEqualTo("done 1");
            assertThat(answer(second).body()).isEqualTo("done 2");
            await().until(() -> api.executingCount() == 0);
            assertThat(answer(app.get("/api/now")).statusCode()).isEqualTo(200);
        }
    }
}
