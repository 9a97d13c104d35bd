package dev.bulwark;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bulwark.testing.FakeTicker;
import dev.bulwark.testing.ManualScheduler;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * Issue 40, item 5: a count an outcome adds is visible to a read that happens after the caller saw the outcome. The
 * read here is made in a callback of the caller's future, which runs as the future completes: the earliest moment a
 * caller can see the outcome.
 */
class CountsBeforeOutcomesTest {

    private final FakeTicker ticker = new FakeTicker();
    private final ManualScheduler scheduler = new ManualScheduler(ticker);

    @Test
    void anAsyncTimeoutIsReportedBeforeTheCallersFutureFails() {
        AtomicInteger timedOut = new AtomicInteger();
        AtomicInteger inTime = new AtomicInteger();
        Timeout timeout = Timeout.builder().name("pricing").timeout(Duration.ofMillis(100)).scheduler(scheduler)
                .ticker(ticker).listener(new TimeoutListener() {
                    @Override
                    public void timedOut(TimeoutExceededException exception) {
                        timedOut.incrementAndGet();
                    }

                    @Override
                    public void finishedInTime(long elapsedNanos) {
                        inTime.incrementAndGet();
                    }
                }).build();
        AtomicInteger seenWhenFailed = new AtomicInteger(-1);
        CompletableFuture<String> late = timeout.callAsync(CompletableFuture::new);
        late.whenComplete((value, failure) -> seenWhenFailed.set(timedOut.get()));
        AtomicInteger seenWhenDone = new AtomicInteger(-1);
        CompletableFuture<String> inner = new CompletableFuture<>();
        CompletableFuture<String> early = timeout.callAsync(() -> inner);
        early.whenComplete((value, failure) -> seenWhenDone.set(inTime.get()));

        inner.complete("price");
        scheduler.advance(Duration.ofMillis(100));

        assertThat(late).isCompletedExceptionally();
        assertThat(seenWhenFailed).as("timed_out counted before the future failed").hasValue(1);
        assertThat(seenWhenDone).as("in_time counted before the future completed").hasValue(1);
    }
}
