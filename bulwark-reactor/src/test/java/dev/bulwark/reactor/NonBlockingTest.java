package dev.bulwark.reactor;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bulwark.Bulkhead;
import dev.bulwark.Permit;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import reactor.blockhound.BlockHound;
import reactor.blockhound.BlockingOperationError;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

/**
 * Issue 10: waiting for a bulkhead slot never blocks a thread. BlockHound (installed for this JVM) fails any
 * blocking call made on one of Reactor's non-blocking threads; the control test shows it catches a blocking
 * acquisition, which is what Resilience4j's operators do (their issues #1592, #578, #1049).
 */
class NonBlockingTest {

    private final Scheduler nonBlocking = Schedulers.newParallel("non-blocking", 1);

    @BeforeAll
    static void installBlockHound() {
        BlockHound.install();
    }

    @AfterEach
    void disposeScheduler() {
        nonBlocking.dispose();
    }

    @Test
    void aSubscriberThatMustWaitForASlotDoesNotBlockANonBlockingThread() throws Exception {
        Bulkhead bulkhead = Bulkhead.builder().maxConcurrency(1).maxQueue(1).maxWait(Duration.ofSeconds(30)).build();
        Sinks.One<String> first = Sinks.one();
        CompletableFuture<String> firstResult = new CompletableFuture<>();
        CompletableFuture<String> secondResult = new CompletableFuture<>();
        AtomicReference<String> secondThread = new AtomicReference<>();

        onNonBlockingThread(() -> {
            assertThat(Schedulers.isInNonBlockingThread()).isTrue();
            first.asMono().transformDeferred(BulwarkOperators.bulkhead(bulkhead))
                    .subscribe(firstResult::complete, firstResult::completeExceptionally);
            Mono.fromSupplier(() -> {
                secondThread.set(Thread.currentThread().getName());
                return "second";
            }).transformDeferred(BulwarkOperators.bulkhead(bulkhead))
                    .subscribe(secondResult::complete, secondResult::completeExceptionally);
        });
        assertThat(bulkhead.queuedCount()).as("the second subscriber waits as a queue entry").isEqualTo(1);
        assertThat(secondResult).isNotDone();

        onNonBlockingThread(() -> first.tryEmitValue("first"));

        assertThat(firstResult.get(10, TimeUnit.SECONDS)).isEqualTo("first");
        assertThat(secondResult.get(10, TimeUnit.SECONDS)).isEqualTo("second");
        assertThat(secondThread.get()).as("started by the thread that freed the slot").startsWith("non-blocking");
        assertThat(bulkhead.executingCount()).isZero();
    }

    @Test
    void controlBlockHoundCatchesABlockingAcquisitionOnANonBlockingThread() throws Exception {
        Bulkhead bulkhead = Bulkhead.builder().maxConcurrency(1).maxQueue(1).maxWait(Duration.ofSeconds(30)).build();
        Permit holder = bulkhead.acquire();
        AtomicReference<Throwable> failure = new AtomicReference<>();

        try {
            onNonBlockingThread(() -> {
                try {
                    bulkhead.acquire().close();
                } catch (Throwable blocked) {
                    failure.set(blocked);
                }
            });
        } finally {
            holder.close();
        }

        assertThat(failure.get()).isInstanceOf(BlockingOperationError.class);
    }

    private void onNonBlockingThread(Runnable action) throws Exception {
        CompletableFuture<Void> done = new CompletableFuture<>();
        nonBlocking.schedule(() -> {
            try {
                action.run();
                done.complete(null);
            } catch (Throwable failure) {
                done.completeExceptionally(failure);
            }
        });
        done.get(10, TimeUnit.SECONDS);
    }
}
