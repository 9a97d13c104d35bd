package dev.bulwark.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bulwark.Bulkhead;
import dev.bulwark.BulkheadListener;
import dev.bulwark.Permit;
import dev.bulwark.Priority;
import dev.bulwark.Rejection;
import dev.bulwark.internal.stats.CallerContextListener;
import dev.bulwark.testing.ManualTime;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/**
 * Issue 40, traces: a queued call's outcome reaches a {@link CallerContextListener} with the context it captured on
 * the caller's thread when the call started to wait, whichever thread decides the outcome; a call that never queued,
 * and a queued call whose bulkhead's listeners changed while it waited, are reported through the plain methods.
 */
class CallerContextTest {

    /** The context is the name of the thread the call started to wait on; events record it with their outcome. */
    static final class ThreadNameContexts implements CallerContextListener {
        final List<String> events = new CopyOnWriteArrayList<>();

        @Override
        public Object callerContext() {
            return Thread.currentThread().getName();
        }

        @Override
        public void admitted(long waitedNanos, Priority priority, Object callerContext) {
            events.add("admitted in " + callerContext);
        }

        @Override
        public void cancelled(long waitedNanos, Priority priority, Object callerContext) {
            events.add("cancelled in " + callerContext);
        }

        @Override
        public void rejected(Rejection rejection, Object callerContext) {
            events.add(rejection.reason() + " in " + callerContext);
        }

        @Override
        public void admitted(long waitedNanos, Priority priority) {
            events.add("admitted");
        }

        @Override
        public void rejected(Rejection rejection) {
            events.add(String.valueOf(rejection.reason()));
        }
    }

    private final ManualTime time = new ManualTime();
    private final ThreadNameContexts listener = new ThreadNameContexts();
    private final Bulkhead bulkhead = Bulkhead.builder().name("db").maxConcurrency(1).maxQueue(3)
            .maxWait(Duration.ofMillis(100)).ticker(time).scheduler(time).listener(listener).build();

    private <T> T onThread(String name, java.util.concurrent.Callable<T> call) throws Exception {
        CompletableFuture<T> result = new CompletableFuture<>();
        Thread thread = new Thread(() -> {
            try {
                result.complete(call.call());
            } catch (Exception failure) {
                result.completeExceptionally(failure);
            }
        }, name);
        thread.start();
        thread.join();
        return result.join();
    }

    @Test
    void queuedOutcomesCarryTheCallersContextWhicheverThreadDecidesThem() throws Exception {
        Permit holder = bulkhead.acquire(); // found a free slot: a plain report
        CompletableFuture<String> running = new CompletableFuture<>();
        CompletableFuture<String> admitted = onThread("caller-1", () -> bulkhead.callAsync(() -> running));
        CompletableFuture<String> cancelled = onThread("caller-2", () -> bulkhead.callAsync(
                () -> CompletableFuture.completedFuture("never")));
        CompletableFuture<String> timedOut = onThread("caller-3", () -> bulkhead.callAsync(
                () -> CompletableFuture.completedFuture("never")));

        cancelled.cancel(false);       // decided on this thread
        holder.close();                // grants caller-1's call on this thread; it holds the slot until completed
        time.advance(Duration.ofMillis(150)); // caller-3's wait ends on the manual clock's timer
        running.complete("ran");

        assertThat(admitted).isCompletedWithValue("ran");
        assertThat(timedOut).isCompletedExceptionally();
        assertThat(listener.events).containsExactly("admitted", "cancelled in caller-2", "admitted in caller-1",
                "WAIT_TIMEOUT in caller-3");
    }

    @Test
    void aQueuedCallWhoseListenersChangedWhileItWaitedIsReportedPlainly() throws Exception {
        Permit holder = bulkhead.acquire();
        CompletableFuture<String> queued = onThread("caller-1", () -> bulkhead.callAsync(
                () -> CompletableFuture.completedFuture("ran")));
        bulkhead.addListener(new BulkheadListener() { });
        holder.close();

        assertThat(queued).isCompletedWithValue("ran");
        assertThat(listener.events).containsExactly("admitted", "admitted");
    }
}
