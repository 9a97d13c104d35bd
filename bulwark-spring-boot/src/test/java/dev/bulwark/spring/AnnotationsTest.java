package dev.bulwark.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.bulwark.BulkheadRejectedException;
import dev.bulwark.TimeoutExceededException;
import dev.bulwark.spring.app.InventoryService;
import dev.bulwark.spring.app.OrderService;
import dev.bulwark.spring.app.ReportService;
import dev.bulwark.spring.app.TestApplication;
import io.micrometer.core.instrument.MeterRegistry;
import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootVersion;
import org.springframework.boot.test.context.SpringBootTest;
import reactor.core.publisher.Mono;
import reactor.test.StepVerifier;

/**
 * Issue 10: the annotations on the beans of a real Spring Boot application configured by application.yml, on the
 * Boot line this module is built for (3.5 here; the boot4-tests module runs this very class on 4.0).
 */
@SpringBootTest(classes = TestApplication.class)
class AnnotationsTest {

    private static final Duration WAIT = Duration.ofSeconds(10);

    @Autowired
    private InventoryService inventory;
    @Autowired
    private OrderService orders;
    @Autowired
    private ReportService reports;
    @Autowired
    private BulwarkPolicies policies;
    @Autowired
    private MeterRegistry meterRegistry;
    @Autowired
    private BulwarkEndpoint endpoint;

    private final ExecutorService executor = Executors.newSingleThreadExecutor();

    @BeforeEach
    void resetServices() {
        inventory.reset();
        orders.reset();
    }

    @AfterEach
    void stopExecutor() {
        inventory.release();
        executor.shutdownNow();
    }

    @Test
    void runsOnTheExpectedSpringBootLine() {
        assertThat(SpringBootVersion.getVersion()).startsWith(System.getProperty("bulwark.expected.boot.major") + ".");
    }

    @Test
    void aPlainMethodIsLimitedAndItsRefusalTurnedIntoTheNamedFallback() throws Exception {
        Future<String> slow = executor.submit(() -> inventory.stock("slow"));
        await().atMost(WAIT).until(() -> policies.bulkhead("inventory-db").executingCount() == 1);

        String refused = inventory.stock("sku-1");
        inventory.release();

        assertThat(refused).isEqualTo("cached:sku-1");
        assertThat(slow.get(10, TimeUnit.SECONDS)).isEqualTo("stock:slow");
        assertThat(inventory.calls()).as("the refused call never reached the method").isEqualTo(1);
        assertThat(policies.bulkhead("inventory-db").executingCount()).isZero();
    }

    @Test
    void theMethodsOwnExceptionPassesThroughUntouched() {
        assertThatThrownBy(() -> inventory.stock("broken")).isInstanceOf(IllegalStateException.class)
                .hasMessage("broken sku");
        assertThat(policies.bulkhead("inventory-db").executingCount()).isZero();
    }

    @Test
    void aCompletionStageHoldsItsSlotUntilItCompletes() {
        CompletableFuture<String> held = inventory.stockAsync("held");
        assertThat(policies.bulkhead("inventory-db").executingCount()).isEqualTo(1);

        CompletableFuture<String> refused = inventory.stockAsync("other");
        assertThat(refused).failsWithin(WAIT).withThrowableOfType(java.util.concurrent.ExecutionException.class)
                .withCauseInstanceOf(BulkheadRejectedException.class);
        inventory.pending().complete("done");

        assertThat(held).succeedsWithin(WAIT).isEqualTo("done");
        assertThat(policies.bulkhead("inventory-db").executingCount()).isZero();
        assertThat(inventory.stockAsync("next")).succeedsWithin(WAIT).isEqualTo("async:next");
    }

    @Test
    void aMonoIsGuardedPerSubscriptionAndAFluxFallsBack() {
        Mono<String> held = inventory.stockMono("held");
        assertThat(inventory.calls()).as("nothing runs before subscription").isZero();
        held.subscribe();
        assertThat(policies.bulkhead("inventory-db").executingCount()).isEqualTo(1);

        StepVerifier.create(inventory.stockMono("other")).expectError(BulkheadRejectedException.class).verify(WAIT);
        StepVerifier.create(inventory.stocks("a", "b")).expectNext("none").expectComplete().verify(WAIT);
        inventory.monoGate().tryEmitValue("released");

        assertThat(policies.bulkhead("inventory-db").executingCount()).isZero();
        StepVerifier.create(inventory.stocks("a", "b")).expectNext("a", "b").expectComplete().verify(WAIT);
    }

    @Test
    void aRetryRetriesTheFailuresItHandlesOnly() throws Exception {
        assertThat(orders.load(2)).isEqualTo("order after 3 attempts");

        orders.reset();
        assertThatThrownBy(() -> orders.load(10)).isInstanceOf(IOException.class).hasMessage("flaky 4");
        orders.reset();
        assertThatThrownBy(() -> orders.reject()).isInstanceOf(IllegalArgumentException.class);
        assertThat(orders.attempts()).isEqualTo(1);
    }

    @Test
    void aTimeoutInterruptsTheCallAtItsDeadline() {
        assertThatThrownBy(() -> orders.price()).isInstanceOf(TimeoutExceededException.class)
                .hasMessageContaining("pricing");
    }

    @Test
    void allThreeComposeRetryOutermostAndTheFallbackCoversThePipeline() throws Exception {
        String quote = orders.quote();

        assertThat(quote).isEqualTo("unavailable: TimeoutExceededException");
        assertThat(orders.priced()).as("a timeout is not an IOException: not retried").isEqualTo(1);
        assertThat(policies.bulkhead("pricing-db").maxConcurrency())
                .as("an undeclared name gets the defaults").isEqualTo(4);
        assertThat(policies.bulkhead("pricing-db").executingCount()).isZero();
    }

    @Test
    void aClassLevelAnnotationGuardsEveryPublicMethod() {
        assertThat(reports.executingReports()).isEqualTo(1);
        assertThat(policies.bulkhead("reports").maxWait()).contains(Duration.ofMillis(250));
    }

    @Test
    void metersAreBoundAndTheEndpointReportsEveryBulkhead() throws Exception {
        io.micrometer.core.instrument.Counter firstTime = meterRegistry.get("bulwark.retry.calls")
                .tags("name", "orders", "outcome", "succeeded.without_retry").counter();
        double before = firstTime.count();

        orders.load(0);

        assertThat(firstTime.count()).isEqualTo(before + 1);
        assertThat(meterRegistry.get("bulwark.bulkhead.max.concurrency").tags("name", "inventory-db").gauge()
                .value()).isEqualTo(1.0);
        BulwarkEndpoint.Report report = endpoint.report();
        assertThat(report.bulkheads()).extracting(BulwarkEndpoint.BulkheadReport::name)
                .contains("inventory-db", "reports");
        assertThat(report.bulkheads()).filteredOn(b -> b.name().equals("reports")).singleElement()
                .satisfies(b -> {
                    assertThat(b.maxConcurrency()).isEqualTo(3);
                    assertThat(b.maxWaitMillis()).isEqualTo(250L);
                    assertThat(b.executing()).isZero();
                });
        assertThat(report.retries()).extracting(BulwarkEndpoint.RetryReport::name).contains("orders");
        assertThat(report.timeouts()).extracting(BulwarkEndpoint.TimeoutReport::name).contains("pricing");
    }
}
