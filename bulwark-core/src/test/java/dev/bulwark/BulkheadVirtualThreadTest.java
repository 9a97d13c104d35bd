package dev.bulwark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** Behaviour 19: on JDK 21+, virtual threads wait in the bulkhead without pinning their carriers. */
@Tag("slow") // long-running: left out of mutation testing
class BulkheadVirtualThreadTest {

    private static final int THREADS = 10_000;
    private static final int LIMIT = 8;

    @Test
    void tenThousandVirtualThreadsCompleteInFifoOrderWithoutPinning() throws Exception {
        assumeTrue(Runtime.version().feature() >= 21, "virtual threads need JDK 21+");
        Bulkhead bulkhead = Bulkhead.builder().maxConcurrency(LIMIT).maxQueue(THREADS).build();
        List<Permit> blockers = new ArrayList<>();
        for (int i = 0; i < LIMIT; i++) {
            blockers.add(bulkhead.acquire());
        }
        AtomicInteger admissions = new AtomicInteger();
        AtomicIntegerArray queuedWhenAdmitted = new AtomicIntegerArray(THREADS);
        Path recordingFile = Files.createTempFile("bulwark-pinning", ".jfr");
        List<Future<?>> calls = new ArrayList<>(THREADS);

        try (Recording recording = new Recording()) {
            recording.enable("jdk.VirtualThreadPinned").withThreshold(Duration.ZERO).withStackTrace();
            recording.start();
            ExecutorService executor = newVirtualThreadPerTaskExecutor();
            try {
                for (int i = 0; i < THREADS; i++) {
                    int index = i;
                    calls.add(executor.submit(() -> bulkhead.run(() -> {
                        // Slots are granted in arrival order, so once call i holds one, every earlier arrival has
                        // left the queue: at most THREADS - 1 - i calls can still be waiting.
                        queuedWhenAdmitted.set(index, bulkhead.queuedCount());
                        admissions.incrementAndGet();
                    })));
                    // Arrival order is the order of joining the queue: wait until this one has joined.
                    while (bulkhead.queuedCount() != i + 1) {
                        Thread.onSpinWait();
                    }
                }
                blockers.forEach(Permit::close);
                for (Future<?> call : calls) {
                    call.get(1, TimeUnit.MINUTES);
                }
            } finally {
                executor.shutdown();
            }
            recording.stop();
            recording.dump(recordingFile);
        }

        assertThat(admissions).hasValue(THREADS);
        for (int i = 0; i < THREADS; i++) {
            assertThat(queuedWhenAdmitted.get(i)).as("waiters left when call %d ran", i)
                    .isLessThanOrEqualTo(THREADS - 1 - i);
        }
        List<RecordedEvent> pinned = RecordingFile.readAllEvents(recordingFile).stream()
                .filter(e -> e.getEventType().getName().equals("jdk.VirtualThreadPinned")).toList();
        assertThat(pinned).as("carrier pinned while waiting in the bulkhead").isEmpty();
        assertThat(bulkhead.executingCount()).isZero();
        assertThat(bulkhead.queuedCount()).isZero();
        Files.deleteIfExists(recordingFile);
    }

    private static ExecutorService newVirtualThreadPerTaskExecutor() throws ReflectiveOperationException {
        // Compiled for Java 17: reach the JDK 21 factory reflectively.
        return (ExecutorService) Executors.class.getMethod("newVirtualThreadPerTaskExecutor").invoke(null);
    }
}
