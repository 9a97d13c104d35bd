package dev.bulwark.spring.shedding;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.bulwark.Bulkhead;
import dev.bulwark.testing.CountingListener;
import java.net.Socket;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Issue 18 item 1: what both load-shedding filters (servlet and WebFlux) do, over real HTTP against the running
 * application. Each subclass starts the application on its stack.
 */
abstract class SheddingContract {

    /** Starts the application on the subclass's stack with these properties. */
    abstract RunningApp start(String... properties);

    static HttpResponse<String> answer(CompletableFuture<HttpResponse<String>> response) {
        return response.orTimeout(30, java.util.concurrent.TimeUnit.SECONDS).join();
    }

    @Test
    void refusesBeyondTheLimitAndQueueWith503RetryAfterAndAProblemBody() {
        try (RunningApp app = start("bulwark.bulkheads.api.max-concurrency=2", "bulwark.bulkheads.api.max-queue=1",
                "bulwark.bulkheads.api.max-wait=5500ms", "bulwark.shedding.routes[0].pattern=/api/**",
                "bulwark.shedding.routes[0].bulkhead=api")) {
            Bulkhead api = app.bulkhead("api");
            CountingListener counts = new CountingListener();
            api.addListener(counts);
            Gate gate = app.gate();

            CompletableFuture<HttpResponse<String>> first = app.get("/api/hold/1");
            CompletableFuture<HttpResponse<String>> second = app.get("/api/hold/2");
            await().until(() -> gate.entered() == 2);
            assertThat(api.executingCount()).isEqualTo(2);
            CompletableFuture<HttpResponse<String>> third = app.get("/api/hold/3");
            await().until(() -> api.queuedCount() == 1);
            HttpResponse<String> fourth = answer(app.get("/api/hold/4"));

            assertThat(fourth.statusCode()).isEqualTo(503);
            assertThat(fourth.headers().firstValue("Retry-After")).as("max-wait 5.5 s, rounded up").hasValue("6");
            assertThat(fourth.headers().firstValue("Content-Type")).hasValueSatisfying(
                    type -> assertThat(type).startsWith("application/problem+json"));
            assertThat(fourth.body()).isEqualTo("{\"type\":\"about:blank\",\"title\":\"Service Unavailable\","
                    + "\"status\":503,\"detail\":\"Bulkhead 'api' is at its limit of 2 concurrent requests and its "
                    + "queue of 1 is full.\",\"instance\":\"/api/hold/4\",\"bulkhead\":\"api\",\"reason\":"
                    + "\"QUEUE_FULL\",\"limit\":2,\"queueLimit\":1,\"executing\":2,\"queued\":1,\"waitedMillis\":0,"
                    + "\"retryAfter\":6}");
            assertThat(gate.entered()).as("the refused and the queued request did not reach the handler")
                    .isEqualTo(2);

            gate.release("1");
            assertThat(answer(first).body()).isEqualTo("done 1");
            await().until(() -> gate.entered() == 3);
            gate.release("2");
            gate.release("3");
            assertThat(Stream.of(second, third).map(SheddingContract::answer).map(HttpResponse::statusCode))
                    .containsExactly(200, 200);
            await().until(() -> counts.released.get() == 3);
            assertThat(api.executingCount()).isZero();
            assertThat(api.queuedCount()).isZero();
            assertThat(counts).hasToString("admitted 3, rejected 1, cancelled 0, released 3");
        }
    }

    @Test
    void aRouteAnswers429WithItsFixedRetryAfterAndOnlyTakesItsPathsAndMethods() {
        try (RunningApp app = start("bulwark.bulkheads.api.max-concurrency=1",
                "bulwark.shedding.routes[0].pattern=/api/**", "bulwark.shedding.routes[0].bulkhead=api",
                "bulwark.shedding.routes[0].status=429", "bulwark.shedding.routes[0].retry-after=7s",
                "bulwark.shedding.routes[1].pattern=/other/**", "bulwark.shedding.routes[1].methods=POST",
                "bulwark.shedding.routes[1].bulkhead=api")) {
            CompletableFuture<HttpResponse<String>> holder = app.get("/api/hold/1");
            await().until(() -> app.gate().entered() == 1);

            HttpResponse<String> refused = answer(app.get("/api/now"));
            assertThat(refused.statusCode()).isEqualTo(429);
            assertThat(refused.headers().firstValue("Retry-After")).hasValue("7");
            assertThat(refused.body()).startsWith("{\"type\":\"about:blank\",\"title\":\"Too Many Requests\","
                    + "\"status\":429,").contains("\"reason\":\"QUEUE_FULL\"", "\"retryAfter\":7");
            assertThat(answer(app.get("/free")).statusCode()).as("no route").isEqualTo(200);
            CompletableFuture<HttpResponse<String>> otherGet = app.get("/other/hold/2");
            await().until(() -> app.gate().entered() == 2);
            app.gate().release("2");
            assertThat(answer(otherGet).statusCode()).as("a GET is not the POST route's").isEqualTo(200);

            app.gate().release("1");
            assertThat(answer(holder).statusCode()).isEqualTo(200);
            await().until(() -> app.bulkhead("api").executingCount() == 0);
        }
    }

    @Test
    void aCriticalRequestEvictsAQueuedSheddableOneWhichAnswers503Evicted() {
        try (RunningApp app = start("bulwark.bulkheads.api.max-concurrency=1", "bulwark.bulkheads.api.max-queue=1",
                "bulwark.shedding.routes[0].pattern=/api/**", "bulwark.shedding.routes[0].bulkhead=api",
                "bulwark.shedding.routes[0].priority-header=X-Priority",
                "bulwark.shedding.routes[0].default-priority=low")) {
            Bulkhead api = app.bulkhead("api");
            CountingListener counts = new CountingListener();
            api.addListener(counts);
            CompletableFuture<HttpResponse<String>> holder = app.get("/api/hold/1");
            await().until(() -> app.gate().entered() == 1);
            CompletableFuture<HttpResponse<String>> sheddable = app.get("/api/hold/2", "X-Priority", "sheddable");
            await().until(() -> api.queuedCount() == 1);

            CompletableFuture<HttpResponse<String>> critical = app.get("/api/hold/3", "X-Priority", "Critical");
            HttpResponse<String> evicted = answer(sheddable);
            assertThat(evicted.statusCode()).isEqualTo(503);
            assertThat(evicted.headers().firstValue("Retry-After")).as("no max-wait, no queue wait yet").hasValue("1");
            assertThat(evicted.headers().firstValue("Content-Type")).hasValueSatisfying(
                    type -> assertThat(type).startsWith("application/problem+json"));
            assertThat(evicted.body()).startsWith("{\"type\":\"about:blank\",\"title\":\"Service Unavailable\","
                    + "\"status\":503,\"detail\":\"A request of higher priority (or, in a LIFO queue, a newer "
                    + "one) took this request's place in the full queue of bulkhead 'api'.\","
                    + "\"instance\":\"/api/hold/2\","
                    + "\"bulkhead\":\"api\",\"reason\":\"EVICTED\",\"priority\":\"SHEDDABLE\",\"limit\":1,"
                    + "\"queueLimit\":1,").endsWith(",\"retryAfter\":1}");
            await().until(() -> api.queuedCount() == 1);

            HttpResponse<String> anotherSheddable = answer(app.get("/api/hold/4", "X-Priority", "SHEDDABLE"));
            assertThat(anotherSheddable.statusCode()).isEqualTo(503);
            assertThat(anotherSheddable.body()).as("nobody lower waits: refused, the CRITICAL one keeps its place")
                    .contains("\"reason\":\"QUEUE_FULL\",\"priority\":\"SHEDDABLE\"", "\"queued\":1");
            HttpResponse<String> unknown = answer(app.get("/api/hold/5", "X-Priority", "urgent"));
            assertThat(unknown.body()).as("an unknown value means the default priority, not a 400")
                    .contains("\"reason\":\"QUEUE_FULL\",\"priority\":\"LOW\"");
            assertThat(app.gate().entered()).as("no refused request reached the handler").isEqualTo(1);

            app.gate().release("1");
            assertThat(answer(holder).statusCode()).isEqualTo(200);
            await().until(() -> app.gate().entered() == 2);
            app.gate().release("3");
            HttpResponse<String> criticalAnswer = answer(critical);
            assertThat(criticalAnswer.statusCode()).isEqualTo(200);
            assertThat(criticalAnswer.body()).isEqualTo("done 3");
            await().until(() -> counts.released.get() == 2);
            assertThat(api.executingCount()).isZero();
            assertThat(api.queuedCount()).isZero();
            assertThat(app.gate().entered()).isEqualTo(2);
            assertThat(counts).hasToString("admitted 2, rejected 3, cancelled 0, released 2");
        }
    }

    @Test
    void withoutAHeaderEveryRequestOfTheRouteHasTheDefaultPriority() {
        try (RunningApp app = start("bulwark.bulkheads.api.max-concurrency=1", "bulwark.bulkheads.api.max-queue=1",
                "bulwark.shedding.routes[0].pattern=/api/hold/**", "bulwark.shedding.routes[0].bulkhead=api",
                "bulwark.shedding.routes[0].default-priority=SHEDDABLE",
                "bulwark.shedding.routes[1].pattern=/other/**", "bulwark.shedding.routes[1].bulkhead=api",
                "bulwark.shedding.routes[1].default-priority=HIGH")) {
            Bulkhead api = app.bulkhead("api");
            CompletableFuture<HttpResponse<String>> holder = app.get("/api/hold/1");
            await().until(() -> app.gate().entered() == 1);
            CompletableFuture<HttpResponse<String>> prefetch = app.get("/api/hold/2", "X-Priority", "CRITICAL");
            await().until(() -> api.queuedCount() == 1);

            CompletableFuture<HttpResponse<String>> high = app.get("/other/hold/3");
            HttpResponse<String> evicted = answer(prefetch);
            assertThat(evicted.body()).as("the route reads no header: the request is SHEDDABLE whatever it sends")
                    .contains("\"reason\":\"EVICTED\",\"priority\":\"SHEDDABLE\"", "\"instance\":\"/api/hold/2\"");

            app.gate().release("1");
            assertThat(answer(holder).statusCode()).isEqualTo(200);
            await().until(() -> app.gate().entered() == 2);
            app.gate().release("3");
            assertThat(answer(high).statusCode()).isEqualTo(200);
            await().until(() -> api.executingCount() == 0);
        }
    }

    @Test
    void aHeaderKeyGivesEachTenantItsOwnPartition() {
        try (RunningApp app = start("bulwark.bulkheads.tenant.max-concurrency=1",
                "bulwark.shedding.routes[0].pattern=/tenants/**", "bulwark.shedding.routes[0].bulkhead=tenant",
                "bulwark.shedding.routes[0].key.header=X-Tenant")) {
            CompletableFuture<HttpResponse<String>> a = app.get("/tenants/x/hold/a", "X-Tenant", "A");
            await().until(() -> app.gate().entered() == 1);

            HttpResponse<String> secondOfA = answer(app.get("/tenants/x/hold/a2", "X-Tenant", "A"));
            assertThat(secondOfA.statusCode()).isEqualTo(503);
            assertThat(secondOfA.body()).contains("\"bulkhead\":\"tenant[A]\"", "\"limit\":1", "\"queueLimit\":0");
            assertThat(secondOfA.headers().firstValue("Retry-After")).as("no max-wait, nothing queued yet")
                    .hasValue("1");

            CompletableFuture<HttpResponse<String>> b = app.get("/tenants/x/hold/b", "X-Tenant", "B");
            CompletableFuture<HttpResponse<String>> none = app.get("/tenants/x/hold/none");
            await().until(() -> app.gate().entered() == 3);
            HttpResponse<String> secondWithoutKey = answer(app.get("/tenants/x/hold/none2"));
            assertThat(secondWithoutKey.body()).as("requests without the header share the default key's partition")
                    .contains("\"bulkhead\":\"tenant[-]\"");

            app.gate().releaseAll();
            assertThat(Stream.of(a, b, none).map(SheddingContract::answer).map(HttpResponse::statusCode))
                    .containsExactly(200, 200, 200);
        }
    }

    @Test
    void aGlobalBulkheadCapsAllTenantsTogether() {
        try (RunningApp app = start("bulwark.bulkheads.tenant.max-concurrency=2",
                "bulwark.bulkheads.all.max-concurrency=1", "bulwark.shedding.routes[0].pattern=/tenants/**",
                "bulwark.shedding.routes[0].bulkhead=tenant", "bulwark.shedding.routes[0].key.header=X-Tenant",
                "bulwark.shedding.routes[0].key.global-bulkhead=all")) {
            CompletableFuture<HttpResponse<String>> a = app.get("/tenants/x/hold/a", "X-Tenant", "A");
            await().until(() -> app.gate().entered() == 1);
            assertThat(app.bulkhead("all").executingCount()).isEqualTo(1);

            HttpResponse<String> b = answer(app.get("/tenants/x/hold/b", "X-Tenant", "B"));
            assertThat(b.statusCode()).isEqualTo(503);
            assertThat(b.body()).as("B's own partition has room; the global limit refuses")
                    .contains("\"bulkhead\":\"all\"", "\"reason\":\"QUEUE_FULL\"");

            app.gate().release("a");
            assertThat(answer(a).statusCode()).isEqualTo(200);
            await().until(() -> app.bulkhead("all").executingCount() == 0);
            CompletableFuture<HttpResponse<String>> later = app.get("/tenants/x/hold/later", "X-Tenant", "B");
            await().until(() -> app.gate().entered() == 2);
            app.gate().release("later");
            assertThat(answer(later).statusCode()).isEqualTo(200);
        }
    }

    @Test
    void aPathVariableKeyAndAPrincipalKeyPartitionLikeAHeader() {
        try (RunningApp app = start("bulwark.bulkheads.tenant.max-concurrency=1",
                "bulwark.shedding.routes[0].pattern=/tenants/{tenant}/**",
                "bulwark.shedding.routes[0].bulkhead=tenant", "bulwark.shedding.routes[0].key.path-variable=tenant",
                "bulwark.shedding.routes[1].pattern=/api/**", "bulwark.shedding.routes[1].bulkhead=tenant",
                "bulwark.shedding.routes[1].key.principal=true", "bulwark.shedding.routes[1].key.default-key=nobody")) {
            CompletableFuture<HttpResponse<String>> one = app.get("/tenants/one/hold/1");
            CompletableFuture<HttpResponse<String>> alice = app.get("/api/hold/alice", "X-User", "alice");
            await().until(() -> app.gate().entered() == 2);

            assertThat(answer(app.get("/tenants/one/hold/x")).body()).contains("\"bulkhead\":\"tenant[one]\"");
            assertThat(answer(app.get("/api/hold/y", "X-User", "alice")).body())
                    .contains("\"bulkhead\":\"tenant[alice]\"");
            CompletableFuture<HttpResponse<String>> two = app.get("/tenants/two/hold/2");
            CompletableFuture<HttpResponse<String>> bob = app.get("/api/hold/bob", "X-User", "bob");
            CompletableFuture<HttpResponse<String>> anonymous = app.get("/api/hold/anonymous");
            await().until(() -> app.gate().entered() == 5);
            assertThat(answer(app.get("/api/hold/z")).body()).contains("\"bulkhead\":\"tenant[nobody]\"");

            app.gate().releaseAll();
            assertThat(Stream.of(one, alice, two, bob, anonymous).map(SheddingContract::answer)
                    .map(HttpResponse::statusCode)).containsOnly(200);
        }
    }

    @Test
    void aRequestAdmittedAfterQueuingReachesTheApplicationAsTheFiltersBeforeLeftIt() {
        try (RunningApp app = start("bulwark.bulkheads.user.max-concurrency=1", "bulwark.bulkheads.user.max-queue=1",
                "bulwark.shedding.routes[0].pattern=/api/**", "bulwark.shedding.routes[0].bulkhead=user",
                "bulwark.shedding.routes[0].key.principal=true")) {
            CompletableFuture<HttpResponse<String>> first = app.get("/api/me/1", "X-User", "alice");
            await().until(() -> app.gate().entered() == 1);
            CompletableFuture<HttpResponse<String>> queued = app.get("/api/me/2", "X-User", "alice");
            await().until(() -> app.bean(dev.bulwark.spring.internal.SheddingRoutes.class).routes().get(0)
                    .limiter() instanceof dev.bulwark.spring.internal.RouteLimiter.Partitioned partitioned
                    && partitioned.partitions().partition("alice").map(Bulkhead::queuedCount).orElse(0) == 1);

            app.gate().release("1");
            assertThat(answer(first).body()).isEqualTo("alice");
            app.gate().release("2");
            HttpResponse<String> resumed = answer(queued);
            assertThat(resumed.statusCode()).isEqualTo(200);
            assertThat(resumed.body()).as("the principal set by an earlier filter survives the wait")
                    .isEqualTo("alice");
        }
    }

    @Test
    void aQueuedRequestRefusedAtTheMaximumWaitGetsWaitTimeout() {
        try (RunningApp app = start("bulwark.bulkheads.api.max-concurrency=1", "bulwark.bulkheads.api.max-queue=1",
                "bulwark.bulkheads.api.max-wait=300ms", "bulwark.shedding.routes[0].pattern=/api/**",
                "bulwark.shedding.routes[0].bulkhead=api")) {
            Bulkhead api = app.bulkhead("api");
            CompletableFuture<HttpResponse<String>> holder = app.get("/api/hold/1");
            await().until(() -> app.gate().entered() == 1);

            HttpResponse<String> timedOut = answer(app.get("/api/hold/2"));
            assertThat(timedOut.statusCode()).isEqualTo(503);
            assertThat(timedOut.headers().firstValue("Retry-After")).as("300 ms rounded up").hasValue("1");
            assertThat(timedOut.body()).contains("\"reason\":\"WAIT_TIMEOUT\"", "\"bulkhead\":\"api\"");
            assertThat(api.queuedCount()).isZero();
            assertThat(app.gate().entered()).isEqualTo(1);

            app.gate().release("1");
            assertThat(answer(holder).statusCode()).isEqualTo(200);
            await().until(() -> api.executingCount() == 0);
        }
    }

    /**
     * Returns the servlet async timeout of the disconnect test: the servlet API does not tell of a client that goes
     * away while its request is suspended, so on the servlet stack the async timeout is what ends the wait.
     */
    abstract String disconnectAsyncTimeout();

    @Test
    void aClientThatDisconnectsWhileQueuedLeavesTheQueueAndNeverRuns() throws Exception {
        try (RunningApp app = start("bulwark.bulkheads.api.max-concurrency=1", "bulwark.bulkheads.api.max-queue=5",
                "bulwark.shedding.routes[0].pattern=/api/**", "bulwark.shedding.routes[0].bulkhead=api",
                "bulwark.shedding.servlet.async-timeout=" + disconnectAsyncTimeout())) {
            Bulkhead api = app.bulkhead("api");
            CountingListener counts = new CountingListener();
            api.addListener(counts);
            CompletableFuture<HttpResponse<String>> holder = app.get("/api/hold/1");
            await().until(() -> app.gate().entered() == 1);
            Socket queued = app.openRaw("/api/hold/2");
            await().until(() -> api.queuedCount() == 1);

            queued.close();
            await().atMost(Duration.ofSeconds(10)).until(() -> api.queuedCount() == 0);
            assertThat(counts.cancelled).hasValue(1);

            app.gate().release("1");
            assertThat(answer(holder).statusCode()).isEqualTo(200);
            await().until(() -> counts.released.get() == 1);
            assertThat(app.gate().entered()).as("the abandoned request never ran").isEqualTo(1);
            assertThat(api.executingCount()).isZero();
            assertThat(counts).hasToString("admitted 1, rejected 0, cancelled 1, released 1");
        }
    }

    @Test
    void manyConcurrentRequestsAreAdmittedQueuedOrRefusedExactly() {
        int limit = 3;
        int queue = 4;
        int requests = 12;
        try (RunningApp app = start("bulwark.bulkheads.api.max-concurrency=" + limit,
                "bulwark.bulkheads.api.max-queue=" + queue, "bulwark.shedding.routes[0].pattern=/api/**",
                "bulwark.shedding.routes[0].bulkhead=api")) {
            Bulkhead api = app.bulkhead("api");
            CountingListener counts = new CountingListener();
            api.addListener(counts);
            List<CompletableFuture<HttpResponse<String>>> responses = new java.util.ArrayList<>();
            for (int i = 0; i < requests; i++) {
                responses.add(app.get("/api/hold/" + i));
            }
            await().until(() -> app.gate().entered() == limit && api.queuedCount() == queue
                    && counts.rejected.get() == requests - limit - queue);
            app.gate().releaseAll();
            List<Integer> statuses = responses.stream().map(SheddingContract::answer).map(HttpResponse::statusCode)
                    .toList();
            assertThat(statuses).filteredOn(status -> status == 200).hasSize(limit + queue);
            assertThat(statuses).filteredOn(status -> status == 503).hasSize(requests - limit - queue);
            await().until(() -> counts.released.get() == limit + queue);
            assertThat(app.gate().entered()).isEqualTo(limit + queue);
            assertThat(api.executingCount()).isZero();
        }
    }
    // Issue 38 finding 7: the client's key comes back in a refusal's body.

    @Test
    void aRefusalEscapesTheClientsKeyAndTellsBrowsersNotToSniffIt() throws Exception {
        String key = "<b onclick=\"x\">\\&</b>";
        try (RunningApp app = start("bulwark.bulkheads.tenant.max-concurrency=1",
                "bulwark.shedding.routes[0].pattern=/tenants/**", "bulwark.shedding.routes[0].bulkhead=tenant",
                "bulwark.shedding.routes[0].key.header=X-Tenant")) {
            CompletableFuture<HttpResponse<String>> holder = app.get("/tenants/x/hold/1", "X-Tenant", key);
            await().until(() -> app.gate().entered() == 1);

            HttpResponse<String> refused = answer(app.get("/tenants/x/hold/2", "X-Tenant", key));
            assertThat(refused.statusCode()).isEqualTo(503);
            assertThat(refused.headers().firstValue("X-Content-Type-Options")).hasValue("nosniff");
            assertThat(refused.headers().firstValue("Retry-After")).hasValue("1");
            assertThat(refused.body()).as("no markup character comes back as itself")
                    .doesNotContain("<", ">", "&")
                    .contains("\"bulkhead\":\"tenant[\\u003cb onclick=\\\"x\\\"\\u003e\\\\\\u0026\\u003c/b\\u003e]\"");
            JsonNode body = new ObjectMapper().readTree(refused.body());
            assertThat(body.get("bulkhead").asText()).as("a JSON parser reads the key back exactly")
                    .isEqualTo("tenant[" + key + "]");
            assertThat(body.get("detail").asText()).contains("'tenant[" + key + "]'");

            app.gate().release("1");
            assertThat(answer(holder).statusCode()).isEqualTo(200);
        }
    }

    @Test
    void withoutCountsAPartitionLimitBodyTellsNothingOfTheLoad() throws Exception {
        try (RunningApp app = start("bulwark.bulkheads.tenant.max-concurrency=3",
                "bulwark.bulkheads.all.max-concurrency=5", "bulwark.shedding.include-counts=false",
                "bulwark.shedding.routes[0].pattern=/tenants/**", "bulwark.shedding.routes[0].bulkhead=tenant",
                "bulwark.shedding.routes[0].key.header=X-Tenant", "bulwark.shedding.routes[0].key.max-partitions=1",
                "bulwark.shedding.routes[0].key.global-bulkhead=all")) {
            CompletableFuture<HttpResponse<String>> a = app.get("/tenants/x/hold/a", "X-Tenant", "A");
            await().until(() -> app.gate().entered() == 1);

            HttpResponse<String> b = answer(app.get("/tenants/x/hold/b", "X-Tenant", "B"));
            assertThat(b.statusCode()).isEqualTo(503);
            assertThat(b.headers().firstValue("X-Content-Type-Options")).hasValue("nosniff");
            assertThat(b.headers().firstValue("Retry-After")).hasValue("1");
            assertThat(b.body()).isEqualTo("{\"type\":\"about:blank\",\"title\":\"Service Unavailable\","
                    + "\"status\":503,\"detail\":\"Bulkhead 'tenant' already holds as many partitions as it may, so "
                    + "none could be made for this request's key.\",\"instance\":\"/tenants/x/hold/b\","
                    + "\"bulkhead\":\"tenant\",\"reason\":\"PARTITION_LIMIT\",\"waitedMillis\":0,\"retryAfter\":1}");

            CompletableFuture<HttpResponse<String>> a2 = app.get("/tenants/x/hold/a2", "X-Tenant", "A");
            CompletableFuture<HttpResponse<String>> a3 = app.get("/tenants/x/hold/a3", "X-Tenant", "A");
            await().until(() -> app.gate().entered() == 3);
            HttpResponse<String> a4 = answer(app.get("/tenants/x/hold/a4", "X-Tenant", "A"));
            assertThat(a4.body()).as("a full partition: no limit, no count, not even in the detail")
                    .contains("\"detail\":\"Bulkhead 'tenant[A]' is at its limit of concurrent requests and its "
                            + "queue is full.\"", "\"reason\":\"QUEUE_FULL\"")
                    .doesNotContain("\"limit\"", "\"queueLimit\"", "\"executing\"", "\"queued\"");

            app.gate().releaseAll();
            assertThat(Stream.of(a, a2, a3).map(SheddingContract::answer).map(HttpResponse::statusCode))
                    .containsOnly(200);
        }
    }

    // Issue 38 finding 3: a client-chosen key is a partition whose name embeds it.

    @Test
    void aKeyLongerThanTheMaximumIsRefused400AndMakesNoPartition() {
        String longest = "k".repeat(256);
        String tooLong = "k".repeat(257);
        try (RunningApp app = start("bulwark.bulkheads.tenant.max-concurrency=1",
                "bulwark.shedding.routes[0].pattern=/api/**", "bulwark.shedding.routes[0].bulkhead=tenant",
                "bulwark.shedding.routes[0].key.header=X-Tenant")) {
            HttpResponse<String> refused = answer(app.get("/api/now", "X-Tenant", tooLong));
            assertThat(refused.statusCode()).isEqualTo(400);
            assertThat(refused.headers().firstValue("X-Content-Type-Options")).hasValue("nosniff");
            assertThat(refused.headers().firstValue("Content-Type")).hasValueSatisfying(
                    type -> assertThat(type).startsWith("application/problem+json"));
            assertThat(refused.body()).isEqualTo("{\"type\":\"about:blank\",\"title\":\"Bad Request\","
                    + "\"status\":400,\"detail\":\"The request's partition key is longer than the 256 characters "
                    + "this route accepts.\",\"instance\":\"/api/now\",\"reason\":\"INVALID_KEY\"}");
            assertThat(partitions(app).partition(tooLong)).as("no partition for the refused key").isEmpty();

            HttpResponse<String> accepted = answer(app.get("/api/now", "X-Tenant", longest));
            assertThat(accepted.statusCode()).isEqualTo(200);
            assertThat(partitions(app).partition(longest)).isPresent();
        }
    }

    @Test
    void aKeyPatternIsAnAllowListButTheDefaultKeyIsAlwaysAccepted() {
        try (RunningApp app = start("bulwark.bulkheads.tenant.max-concurrency=1",
                "bulwark.shedding.routes[0].pattern=/api/**", "bulwark.shedding.routes[0].bulkhead=tenant",
                "bulwark.shedding.routes[0].key.header=X-Tenant", "bulwark.shedding.routes[0].key.pattern=acme|globex",
                "bulwark.shedding.routes[0].key.max-length=10")) {
            HttpResponse<String> stranger = answer(app.get("/api/now", "X-Tenant", "initech"));
            assertThat(stranger.statusCode()).isEqualTo(400);
            assertThat(stranger.body()).contains("\"detail\":\"The request's partition key is not one this route "
                    + "accepts.\"", "\"reason\":\"INVALID_KEY\"").doesNotContain("initech");
            assertThat(answer(app.get("/api/now", "X-Tenant", "acmeacmeacme")).body())
                    .contains("longer than the 10 characters");
            assertThat(answer(app.get("/api/now", "X-Tenant", "acme")).statusCode()).isEqualTo(200);
            assertThat(answer(app.get("/api/now")).statusCode()).as("no header: the default key '-'")
                    .isEqualTo(200);
            assertThat(partitions(app).partition("initech")).isEmpty();
        }
    }

    @Test
    void anApplicationKeyValidatorRefusesKeysAfterLengthAndPattern() {
        try (RunningApp app = start("test.refused-key-prefix=guest-", "bulwark.bulkheads.tenant.max-concurrency=1",
                "bulwark.shedding.routes[0].pattern=/api/**", "bulwark.shedding.routes[0].bulkhead=tenant",
                "bulwark.shedding.routes[0].key.header=X-Tenant")) {
            for (String refused : List.of("guest-1", "boom")) {
                HttpResponse<String> answer = answer(app.get("/api/now", "X-Tenant", refused));
                assertThat(answer.statusCode()).as(refused).isEqualTo(400);
                assertThat(answer.body()).contains("\"detail\":\"The request's partition key is not one this route "
                        + "accepts.\"", "\"reason\":\"INVALID_KEY\"");
                assertThat(partitions(app).partition(refused)).isEmpty();
            }
            assertThat(answer(app.get("/api/now", "X-Tenant", "member-1")).statusCode()).isEqualTo(200);
            assertThat(answer(app.get("/api/now", "X-Tenant", "k".repeat(257))).body())
                    .as("the length is checked before the application's validator")
                    .contains("longer than the 256 characters");
        }
    }

    // Issue 38 finding 1 over real HTTP: at a full table every new key was refused PARTITION_LIMIT until the idle
    // timeout, tenants new or idle through the flood alike.

    @Test
    void aFloodOfOneOffKeysLocksNoTenantOut() {
        try (RunningApp app = start("bulwark.bulkheads.tenant.max-concurrency=1",
                "bulwark.shedding.routes[0].pattern=/api/**", "bulwark.shedding.routes[0].bulkhead=tenant",
                "bulwark.shedding.routes[0].key.header=X-Tenant", "bulwark.shedding.routes[0].key.max-partitions=10")) {
            assertThat(answer(app.get("/api/now", "X-Tenant", "regular")).statusCode()).isEqualTo(200);
            for (int i = 0; i < 150; i++) {
                assertThat(answer(app.get("/api/now", "X-Tenant", "flood-" + i)).statusCode())
                        .as("flood request %d", i).isEqualTo(200);
            }

            assertThat(answer(app.get("/api/now", "X-Tenant", "regular")).statusCode()).isEqualTo(200);
            assertThat(answer(app.get("/api/now", "X-Tenant", "newcomer")).statusCode()).isEqualTo(200);
            assertThat(partitions(app).partitionCount()).isEqualTo(10);
        }
    }

    // Issue 38 finding 4: after a flood of keys at a full table, nothing counted it, showed it or logged it.

    @Test
    void aFloodOfNewKeysAtAFullTableIsCountedAndTheActuatorShowsTheTableFull() throws Exception {
        try (RunningApp app = start("bulwark.bulkheads.tenant.max-concurrency=1",
                "bulwark.shedding.routes[0].pattern=/tenants/**", "bulwark.shedding.routes[0].bulkhead=tenant",
                "bulwark.shedding.routes[0].key.header=X-Tenant", "bulwark.shedding.routes[0].key.max-partitions=2",
                "management.endpoints.web.exposure.include=bulwark")) {
            CompletableFuture<HttpResponse<String>> a = app.get("/tenants/x/hold/a", "X-Tenant", "A");
            CompletableFuture<HttpResponse<String>> b = app.get("/tenants/x/hold/b", "X-Tenant", "B");
            await().until(() -> app.gate().entered() == 2);
            for (int i = 0; i < 40; i++) {
                HttpResponse<String> flood = answer(app.get("/tenants/x/now", "X-Tenant", "flood-" + i));
                assertThat(flood.statusCode()).isEqualTo(503);
                assertThat(flood.body()).contains("\"reason\":\"PARTITION_LIMIT\"");
            }

            io.micrometer.core.instrument.MeterRegistry registry =
                    app.bean(io.micrometer.core.instrument.MeterRegistry.class);
            assertThat(registry.get("bulwark.partitioned.calls").tag("name", "tenant")
                    .tag("outcome", "rejected.partition_limit").counter().count()).isEqualTo(40);
            assertThat(registry.get("bulwark.partitioned.partitions").tag("name", "tenant").gauge().value())
                    .isEqualTo(2);
            JsonNode report = new ObjectMapper().readTree(answer(app.get("/actuator/bulwark")).body());
            JsonNode table = report.get("partitioned").get(0);
            assertThat(table.get("name").asText()).isEqualTo("tenant");
            assertThat(table.get("partitions").asInt()).isEqualTo(2);
            assertThat(table.get("maxPartitions").asInt()).isEqualTo(2);
            assertThat(table.get("executing").asInt()).isEqualTo(2);
            assertThat(report.toString()).as("the endpoint shows no key").doesNotContain("flood-", "\"A\"");

            app.gate().releaseAll();
            assertThat(Stream.of(a, b).map(SheddingContract::answer).map(HttpResponse::statusCode))
                    .containsOnly(200);
        }
    }

    private static dev.bulwark.PartitionedBulkhead<String> partitions(RunningApp app) {
        return ((dev.bulwark.spring.internal.RouteLimiter.Partitioned) app
                .bean(dev.bulwark.spring.internal.SheddingRoutes.class).routes().get(0).limiter()).partitions();
    }
}
