package dev.bulwark.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.bulwark.spring.app.InventoryService;
import dev.bulwark.spring.app.TestApplication;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.core.env.Environment;

/**
 * Issue 14: a new user's application — Spring MVC, Actuator, the Prometheus registry and bulwark-spring-boot, nothing
 * else — started on a random port and scraped over real HTTP: the {@code bulwark_*} series are there, fallback
 * methods included, and {@code /actuator/bulwark} has the documented shape. The same class runs on Boot 4.0 in
 * bulwark-spring-boot-boot4-tests.
 *
 * <p>{@code @SpringBootTest} replaces every exporting registry with a simple one unless told otherwise: Boot 3.5 reads
 * {@code spring.test.observability.auto-configure}, Boot 4.0 {@code spring.test.metrics.export}.
 */
@SpringBootTest(classes = TestApplication.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = {"spring.test.observability.auto-configure=true", "spring.test.metrics.export=true",
                "management.endpoints.web.exposure.include=bulwark,prometheus"})
class PrometheusScrapeTest {

    private static final Duration WAIT = Duration.ofSeconds(10);

    @Autowired
    private InventoryService inventory;
    @Autowired
    private BulwarkPolicies policies;
    @Autowired
    private Environment environment;

    private final HttpClient http = HttpClient.newHttpClient();
    private final ExecutorService executor = Executors.newSingleThreadExecutor();

    @AfterEach
    void stop() {
        inventory.release();
        executor.shutdownNow();
    }

    private String get(String path) throws Exception {
        HttpResponse<String> response = http.send(HttpRequest.newBuilder(URI.create("http://localhost:"
                + environment.getProperty("local.server.port") + path)).timeout(WAIT).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).as("GET %s", path).isEqualTo(200);
        return response.body();
    }

    @Test
    void theBulwarkSeriesAndTheFallbackCountAreScraped() throws Exception {
        inventory.reset();
        Future<String> holder = executor.submit(() -> inventory.stock("slow"));
        await().atMost(WAIT).until(() -> policies.bulkhead("inventory-db").executingCount() == 1);

        assertThat(inventory.stock("apple")).isEqualTo("cached:apple");
        String scraped = get("/actuator/prometheus");

        inventory.release();
        assertThat(holder.get(10, TimeUnit.SECONDS)).isEqualTo("stock:slow");
        assertThat(scraped).contains("bulwark_bulkhead_max_concurrency{name=\"inventory-db\"} 1.0",
                "bulwark_bulkhead_executing{name=\"inventory-db\"} 1.0",
                "bulwark_bulkhead_calls_total{name=\"inventory-db\",outcome=\"rejected.queue_full\"} 1.0",
                "bulwark_fallback_used_total{exception=\"BulkheadRejectedException\",name=\"inventory-db\"} 1.0",
                "bulwark_retry_calls_total{name=\"orders\"", "bulwark_timeout_calls_total{name=\"pricing\"");
    }

    @Test
    void theEndpointAnswersTheDocumentedJson() throws Exception {
        String json = get("/actuator/bulwark").replaceAll("\\s", "");

        assertThat(json).startsWith("{\"bulkheads\":[").contains(
                "{\"name\":\"inventory-db\",\"maxConcurrency\":1,\"maxQueue\":0,\"maxWaitMillis\":null,"
                        + "\"executing\":0,\"queued\":0}",
                "{\"name\":\"reports\",\"maxConcurrency\":3,\"maxQueue\":0,\"maxWaitMillis\":250,\"executing\":0,"
                        + "\"queued\":0}",
                "\"retries\":[{\"name\":\"orders\",\"maxRetries\":3}]",
                "\"timeouts\":[{\"name\":\"pricing\",\"timeoutMillis\":100}]");
    }
}
