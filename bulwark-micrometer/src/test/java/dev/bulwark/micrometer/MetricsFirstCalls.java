package dev.bulwark.micrometer;

import dev.bulwark.Bulkhead;
import dev.bulwark.BulkheadRejectedException;
import dev.bulwark.Permit;
import dev.bulwark.testing.FirstUseMeter;
import dev.bulwark.testing.FreshJvm;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The child program of {@link MetricsFirstCallsTest}: a fresh JVM's first binding of a bulkhead to a real
 * Micrometer registry ({@code prometheus} or {@code simple}, the first argument), its first calls and its first
 * scrape, each timed with {@link FirstUseMeter} for the first ({@code cold}) and a second ({@code warm}) round in
 * the same JVM, each round on a new bulkhead:
 * <ul>
 *   <li>{@code bind}: {@code BulwarkMetrics.bind(bulkhead)};</li>
 *   <li>{@code admitted}, {@code refusal}: a call with a free slot and a call refused for a full queue, through the
 *       bound bulkhead: the binding's listener runs on the caller's thread;</li>
 *   <li>{@code scrape}: the registry's scrape ({@code scrape()} for Prometheus, reading every meter for the simple
 *       registry), on the main thread while another thread makes calls, whose slowest call is
 *       {@code scrape.slowestCall} (microseconds) and {@code scrape.callerWaits} the times that thread parked,
 *       waited or blocked meanwhile: a scrape must never hold a caller up.</li>
 * </ul>
 */
public final class MetricsFirstCalls {

    private MetricsFirstCalls() {
    }

    /**
     * Runs both rounds.
     *
     * @param args {@code prometheus} or {@code simple}
     * @throws Exception never expected
     */
    public static void main(String[] args) throws Exception {
        FreshJvm.watchdog(Duration.ofSeconds(40));
        boolean prometheus = args[0].equals("prometheus");
        MeterRegistry registry = prometheus ? new PrometheusMeterRegistry(PrometheusConfig.DEFAULT)
                : new SimpleMeterRegistry();
        BulwarkMetrics metrics = BulwarkMetrics.of(registry);
        for (String round : new String[] {"cold", "warm"}) {
            Bulkhead bulkhead = Bulkhead.builder().name("first-" + round).maxConcurrency(1).maxQueue(0).build();

            FirstUseMeter.Section section = FirstUseMeter.start();
            metrics.bind(bulkhead);
            section.stop(round, "bind");
            // The JVM-wide class count must not take in what the Flight Recorder set-up thread, started by the first
            // build, loads meanwhile (13 classes once in .ci/run against a bound of 5).
            FirstUseMeter.awaitBackgroundSetUp();

            section = FirstUseMeter.start();
            bulkhead.call(() -> 1);
            section.stop(round, "admitted");

            Permit held = bulkhead.acquire();
            section = FirstUseMeter.start();
            try {
                bulkhead.call(() -> 1);
                FirstUseMeter.print(round, "unexpected", 1);
            } catch (BulkheadRejectedException expected) {
                section.stop(round, "refusal");
            }
            held.close();

            scrapeWhileCalling(round, registry, bulkhead);
        }
        System.out.flush();
        System.exit(0);
    }

    private static void scrapeWhileCalling(String round, MeterRegistry registry, Bulkhead bulkhead)
            throws InterruptedException {
        CountDownLatch calling = new CountDownLatch(1);
        CountDownLatch scraped = new CountDownLatch(1);
        AtomicLong slowest = new AtomicLong();
        Thread caller = new Thread(() -> {
            do {
                long started = System.nanoTime();
                bulkhead.call(() -> 1);
                slowest.accumulateAndGet((System.nanoTime() - started) / 1000, Math::max);
                // Counted from the end of this thread's first round, not before it: that round's own first uses
                // (the method reference's bootstrap, classes loaded on a new thread) can wait for a lock or a class
                // initialisation the scrape holds for its own first uses, which is the JVM's, not the scrape's.
                calling.countDown();
            } while (scraped.getCount() > 0);
        }, "caller-during-scrape");
        caller.start();
        calling.await();
        long waitsBefore = FirstUseMeter.waits(caller);
        FirstUseMeter.Section section = FirstUseMeter.start();
        long size = scrape(registry);
        section.stop(round, "scrape");
        long waitsAfter = FirstUseMeter.waits(caller);
        scraped.countDown();
        caller.join();
        // Parked, waiting or blocked on a monitor while the scrape ran: a caller held up by the scrape. A caller
        // that merely lost its core to the scrape on a busy machine counts nothing here.
        FirstUseMeter.print(round, "scrape.callerWaits", waitsAfter - waitsBefore);
        FirstUseMeter.print(round, "scrape.slowestCall", slowest.get());
        FirstUseMeter.print(round, "scrape.size", size);
    }

    private static long scrape(MeterRegistry registry) {
        if (registry instanceof PrometheusMeterRegistry prometheus) {
            return prometheus.scrape().length();
        }
        // What a simple registry's reader does: every meter's every measurement.
        long values = 0;
        for (var meter : registry.getMeters()) {
            for (var measurement : meter.measure()) {
                values += Double.isNaN(measurement.getValue()) ? 0 : 1;
            }
        }
        return values;
    }
}
