package dev.bulwark.micrometer;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bulwark.testing.FirstUseMeter;
import dev.bulwark.testing.FreshJvm;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

/**
 * Issue 37 for the Micrometer binding: in a fresh JVM (see {@link MetricsFirstCalls}), binding pays the binding's
 * set-up, the first calls through a bound bulkhead pay almost nothing more than later ones, and the first scrape
 * never makes a caller wait. Measured here: binding 47 to 250 ms cold (160 to 250 classes) and 1 to 9 ms warm; the
 * first admitted call 0.7 to 3.9 ms and the first refusal 0.3 to 1.8 ms (1 to 3 classes) against 0.1 ms; the first
 * Prometheus scrape 70 to 100 ms (20 to 30 warm) on the scraping thread, while a caller went on without once
 * parking or blocking. No fix was needed; this guards it.
 */
class MetricsFirstCallsTest {

    @Test
    void theFirstCallsThroughABoundBulkheadAndTheFirstScrapeHoldNoCallerUp() throws Exception {
        ExecutorService twoAtATime = Executors.newFixedThreadPool(2);
        try {
            List<String> registries = List.of("prometheus", "simple");
            List<Future<FreshJvm.Result>> runs = registries.stream().map(registry -> twoAtATime.submit(() ->
                    FreshJvm.run(MetricsFirstCalls.class, Duration.ofSeconds(60), List.of(), registry))).toList();
            for (int i = 0; i < registries.size(); i++) {
                FreshJvm.Result run = runs.get(i).get();
                String output = registries.get(i) + ":\n" + run.output();
                assertThat(run.exitCode()).as(output).isZero();
                Map<String, Long> figures = FirstUseMeter.figures(run.output());
                assertThat(figures).as(output).doesNotContainKeys("cold.unexpected", "warm.unexpected");
                // The binding's listener on the caller's thread: nothing left to load, nothing slow.
                assertThat(figures.get("cold.admitted.classes")).as(output).isLessThanOrEqualTo(5);
                assertThat(figures.get("cold.refusal.classes")).as(output).isLessThanOrEqualTo(5);
                assertThat(figures.get("cold.admitted")).as(output).isLessThan(50_000);
                assertThat(figures.get("cold.refusal")).as(output).isLessThan(50_000);
                // A scrape reads without locks a caller needs: the caller never parked or blocked meanwhile.
                assertThat(figures.get("cold.scrape.callerWaits")).as(output).isZero();
                assertThat(figures.get("warm.scrape.callerWaits")).as(output).isZero();
            }
        } finally {
            twoAtATime.shutdownNow();
        }
    }
}
