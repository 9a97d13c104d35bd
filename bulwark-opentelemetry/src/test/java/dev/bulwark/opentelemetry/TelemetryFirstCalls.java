package dev.bulwark.opentelemetry;

import dev.bulwark.Bulkhead;
import dev.bulwark.BulkheadRejectedException;
import dev.bulwark.Permit;
import dev.bulwark.testing.FirstUseMeter;
import dev.bulwark.testing.FreshJvm;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.metrics.SdkMeterProvider;
import io.opentelemetry.sdk.testing.exporter.InMemoryMetricReader;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The child program of {@link TelemetryFirstCallsTest}: a fresh JVM's first binding of a bulkhead to a real
 * OpenTelemetry SDK (its meter provider and a real {@code MetricReader}), its first calls and its first collection,
 * each timed with {@link FirstUseMeter} for the first ({@code cold}) and a second ({@code warm}) round in the same
 * JVM, each round on a new bulkhead:
 * <ul>
 *   <li>{@code bind}: {@code BulwarkTelemetry.bind(bulkhead)};</li>
 *   <li>{@code admitted}, {@code refusal}, {@code queued}: a call with a free slot, a call refused for a full queue
 *       and a call admitted after a wait, through the bound bulkhead: the binding's listener runs on the caller's
 *       thread (the wait's record into a histogram on the releasing one);</li>
 *   <li>{@code collect}: the reader's collection, on the main thread while another thread makes calls, whose
 *       slowest call is {@code collect.slowestCall} (microseconds) and {@code collect.callerWaits} the times that
 *       thread parked, waited or blocked meanwhile: a collection must never hold a caller up.</li>
 * </ul>
 */
public final class TelemetryFirstCalls {

    private TelemetryFirstCalls() {
    }

    /**
     * Runs both rounds.
     *
     * @param args none
     * @throws Exception never expected
     */
    public static void main(String[] args) throws Exception {
        FreshJvm.watchdog(Duration.ofSeconds(40));
        InMemoryMetricReader reader = InMemoryMetricReader.create();
        SdkMeterProvider provider = SdkMeterProvider.builder().registerMetricReader(reader).build();
        BulwarkTelemetry telemetry = BulwarkTelemetry.create(OpenTelemetrySdk.builder().setMeterProvider(provider)
                .build());
        for (String round : new String[] {"cold", "warm"}) {
            Bulkhead bulkhead = Bulkhead.builder().name("first-" + round).maxConcurrency(1).maxQueue(1).build();
            FirstUseMeter.awaitBackgroundSetUp();

            FirstUseMeter.Section section = FirstUseMeter.start();
            telemetry.bind(bulkhead);
            section.stop(round, "bind");

            section = FirstUseMeter.start();
            bulkhead.call(() -> 1);
            section.stop(round, "admitted");

            Permit held = bulkhead.acquire();
            Bulkhead full = Bulkhead.builder().name("full-" + round).maxConcurrency(1).maxQueue(0).build();
            telemetry.bind(full);
            Permit fullHeld = full.acquire();
            section = FirstUseMeter.start();
            try {
                full.call(() -> 1);
                FirstUseMeter.print(round, "unexpected", 1);
            } catch (BulkheadRejectedException expected) {
                section.stop(round, "refusal");
            }
            fullHeld.close();

            var queued = bulkhead.acquireAsync();
            section = FirstUseMeter.start();
            held.close();
            queued.join().close();
            section.stop(round, "queued");

            collectWhileCalling(round, reader, bulkhead);
        }
        System.out.flush();
        System.exit(0);
    }

    private static void collectWhileCalling(String round, InMemoryMetricReader reader, Bulkhead bulkhead)
            throws InterruptedException {
        CountDownLatch calling = new CountDownLatch(1);
        CountDownLatch collected = new CountDownLatch(1);
        AtomicLong slowest = new AtomicLong();
        Thread caller = new Thread(() -> {
            do {
                long started = System.nanoTime();
                bulkhead.call(() -> 1);
                slowest.accumulateAndGet((System.nanoTime() - started) / 1000, Math::max);
                // Counted from the end of this thread's first round, not before it: that round's own first uses
                // (the method reference's bootstrap, classes loaded on a new thread) can wait for a lock or a class
                // initialisation the collection holds for its own first uses, which is the JVM's, not the collection's.
                calling.countDown();
            } while (collected.getCount() > 0);
        }, "caller-during-collect");
        caller.start();
        calling.await();
        long waitsBefore = FirstUseMeter.waits(caller);
        FirstUseMeter.Section section = FirstUseMeter.start();
        int metrics = reader.collectAllMetrics().size();
        section.stop(round, "collect");
        long waitsAfter = FirstUseMeter.waits(caller);
        collected.countDown();
        caller.join();
        // Parked, waiting or blocked on a monitor while the collection ran: a caller held up by it. A caller that
        // merely lost its core to the collection on a busy machine counts nothing here.
        FirstUseMeter.print(round, "collect.callerWaits", waitsAfter - waitsBefore);
        FirstUseMeter.print(round, "collect.slowestCall", slowest.get());
        FirstUseMeter.print(round, "collect.metrics", metrics);
    }
}
