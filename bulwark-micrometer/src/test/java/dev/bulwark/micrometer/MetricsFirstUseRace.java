package dev.bulwark.micrometer;

import dev.bulwark.Bulkhead;
import dev.bulwark.BulkheadRejectedException;
import dev.bulwark.Bulkheads;
import dev.bulwark.Fallback;
import dev.bulwark.Permit;
import dev.bulwark.Retry;
import dev.bulwark.Timeout;
import dev.bulwark.testing.FreshJvm;
import dev.bulwark.testing.FreshJvmRace;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * A fresh JVM's first bindings, calls and scrapes, raced (the child program of {@link MetricsFirstUseRaceTest}):
 * nothing is bound before one latch releases a thread per entry point, so that binding bulkheads, a retry, a timeout,
 * a registry of bulkheads and a fallback counter, calls through bulkheads being bound at that moment (admitted,
 * refused, granted after a wait, timed out), and Prometheus scrapes all run, and initialise this module's classes,
 * at the same moment. Only a hang or an unexpected exception fails.
 */
public final class MetricsFirstUseRace {

    private MetricsFirstUseRace() {
    }

    /**
     * Runs the race.
     *
     * @param args none
     * @throws Exception never expected
     */
    public static void main(String[] args) throws Exception {
        FreshJvm.watchdog(Duration.ofSeconds(40));
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        BulwarkMetrics metrics = BulwarkMetrics.of(registry);
        List<Runnable> callers = new ArrayList<>();

        Bulkhead free = Bulkhead.builder().name("free").maxConcurrency(8).build();
        callers.add(() -> metrics.bind(free));
        for (int i = 0; i < 2; i++) {
            callers.add(() -> free.call(() -> 1));
        }
        Bulkhead full = Bulkhead.builder().name("full").maxConcurrency(1).maxQueue(0).build();
        full.acquire();
        callers.add(() -> {
            metrics.bind(full);
            refused(() -> full.call(() -> 1));
        });
        callers.add(() -> refused(() -> full.callAsync(() -> CompletableFuture.completedFuture(1)).join()));
        Bulkhead queueing = Bulkhead.builder().name("queueing").maxConcurrency(1).maxQueue(4)
                .maxWait(Duration.ofMillis(200)).build();
        Permit queueingHeld = queueing.acquire();
        callers.add(() -> {
            metrics.bind(queueing);
            CompletableFuture<Integer> queued = queueing.callAsync(() -> CompletableFuture.completedFuture(1));
            queueingHeld.close();
            mayBeRefused(queued::join);
        });
        callers.add(() -> mayBeRefused(() -> queueing.call(() -> 1)));

        Bulkheads all = Bulkheads.create();
        callers.add(() -> metrics.bind(all));
        callers.add(() -> all.register(Bulkhead.builder().name("registered").build()).call(() -> 1));

        Retry retry = Retry.builder().name("retry").handle(IOException.class).maxRetries(1)
                .delay(Duration.ofMillis(1)).build();
        callers.add(() -> {
            metrics.bind(retry);
            int[] attempts = {0};
            try {
                retry.call(() -> {
                    if (attempts[0]++ == 0) {
                        throw new IOException("first attempt");
                    }
                    return 1;
                });
            } catch (IOException notRetried) {
                throw new AssertionError("the retry gave up", notRetried);
            }
        });
        Timeout timeout = Timeout.of(Duration.ofSeconds(5));
        callers.add(() -> {
            metrics.bind(timeout);
            timeout.call(() -> 1);
        });
        callers.add(() -> Fallback.of(0).onFallback(metrics.fallbackCounter("fallback")).call(() -> {
            throw new IllegalStateException("falls back");
        }));
        for (int i = 0; i < 2; i++) {
            callers.add(registry::scrape);
        }

        FreshJvmRace.race(callers, Duration.ofSeconds(30));
        System.exit(0);
    }

    private static void refused(Runnable call) {
        try {
            call.run();
            throw new AssertionError("not refused");
        } catch (BulkheadRejectedException expected) {
            expected.rejection();
        } catch (CompletionException expected) {
            if (!(expected.getCause() instanceof BulkheadRejectedException)) {
                throw expected;
            }
        }
    }

    /** A call whose outcome depends on the race: run or refused are both fine. */
    private static void mayBeRefused(Runnable call) {
        try {
            call.run();
        } catch (BulkheadRejectedException | CompletionException e) {
            // The race decided against this caller: its wait timed out.
        }
    }
}
