package dev.bulwark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;
import org.junit.jupiter.api.Test;

/** Issue 7: rejections and waits are recorded by Flight Recorder with no code in the application. */
class FlightRecorderTest {

    @Test
    void rejectionsAndWaitsAreRecordedWithTheirFacts() throws Exception {
        Path file = Files.createTempFile("bulwark", ".jfr");
        try (Recording recording = new Recording()) {
            // The same settings as -XX:StartFlightRecording's default profile: Bulwark's events are enabled there.
            recording.setSettings(jdk.jfr.Configuration.getConfiguration("default").getSettings());
            recording.start();
            // Built while a recording runs: the events are set up before build() returns, even in a fresh JVM.
            Bulkhead bulkhead = Bulkhead.builder().name("jfr-db").maxConcurrency(1).maxQueue(1).build();

            Permit holder = bulkhead.acquire();
            CompletableFuture<Integer> waiter = bulkhead.callAsync(() -> CompletableFuture.completedFuture(1));
            catchThrowable(() -> bulkhead.call(() -> 2)); // queue full
            holder.close();
            waiter.join();

            recording.stop();
            recording.dump(file);
        }

        List<RecordedEvent> events = RecordingFile.readAllEvents(file);
        RecordedEvent rejection = events.stream()
                .filter(e -> e.getEventType().getName().equals("dev.bulwark.BulkheadRejection")).findFirst()
                .orElseThrow();
        assertThat(rejection.getString("bulkhead")).isEqualTo("jfr-db");
        assertThat(rejection.getString("reason")).isEqualTo("QUEUE_FULL");
        assertThat(rejection.getInt("maxConcurrency")).isEqualTo(1);
        assertThat(rejection.getInt("maxQueue")).isEqualTo(1);
        assertThat(rejection.getInt("executing")).isEqualTo(1);
        assertThat(rejection.getInt("queued")).isEqualTo(1);
        assertThat(rejection.getDuration("waited")).isEqualTo(Duration.ZERO);
        RecordedEvent wait = events.stream()
                .filter(e -> e.getEventType().getName().equals("dev.bulwark.BulkheadWait")).findFirst()
                .orElseThrow();
        assertThat(wait.getString("bulkhead")).isEqualTo("jfr-db");
        assertThat(wait.getString("outcome")).isEqualTo("admitted");
        assertThat(wait.getInt("queuedAhead")).isZero();
        assertThat(wait.getDuration()).isPositive();
        Files.deleteIfExists(file);
    }
}
