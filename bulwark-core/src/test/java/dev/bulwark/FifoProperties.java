package dev.bulwark;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bulwark.testing.FakeTicker;
import dev.bulwark.testing.ManualScheduler;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * FIFO order under random schedules of arrivals, cancellations (through the future or the signal), timeouts, releases
 * and limit changes. A bulkhead driven from one thread with a fake clock is compared step by step with a plain
 * model: the same arrivals are accepted or refused, every call ends the same way, the counts agree, and no call is
 * ever granted while one that arrived earlier still waits.
 */
class FifoProperties {

    private static final int QUEUE = 6;
    private static final Duration MAX_WAIT = Duration.ofMillis(50);

    /** One step of a schedule. */
    sealed interface Step permits Arrive, Cancel, Release, Tick, ChangeLimit {
    }

    record Arrive() implements Step {
    }

    record Cancel(int which, boolean throughSignal) implements Step {
    }

    record Release(int which) implements Step {
    }

    record Tick(int millis) implements Step {
    }

    record ChangeLimit(int limit) implements Step {
    }

    enum Fate { WAITING, GRANTED, CANCELLED, TIMED_OUT, REFUSED }

    /** One arrival, as the model sees it and as the bulkhead answered it. */
    static final class Call {
        final int id;
        final long arrivedAt;
        final CancellationSignal signal = CancellationSignal.create();
        CompletableFuture<Permit> future;
        Fate expected;
        Permit permit;

        Call(int id, long arrivedAt) {
            this.id = id;
            this.arrivedAt = arrivedAt;
        }
    }

    @Property(tries = 300)
    void callsAreGrantedInArrivalOrderAndMatchTheModel(@ForAll("schedules") List<Step> schedule) {
        FakeTicker ticker = new FakeTicker();
        ManualScheduler scheduler = new ManualScheduler(ticker);
        Bulkhead bulkhead = Bulkhead.builder().maxConcurrency(2).maxQueue(QUEUE).maxWait(MAX_WAIT).ticker(ticker)
                .scheduler(scheduler).build();
        List<Call> calls = new ArrayList<>();
        ArrayDeque<Call> queue = new ArrayDeque<>();
        List<Call> holders = new ArrayList<>();
        List<String> fifoViolations = new ArrayList<>();
        int[] model = {2, 0}; // limit, executing
        long now = 0;

        for (Step step : schedule) {
            if (step instanceof Arrive) {
                Call call = new Call(calls.size(), now);
                calls.add(call);
                if (queue.isEmpty() && model[1] < model[0]) {
                    model[1]++;
                    call.expected = Fate.GRANTED;
                    holders.add(call);
                } else if (queue.size() >= QUEUE) {
                    call.expected = Fate.REFUSED;
                } else {
                    call.expected = Fate.WAITING;
                    queue.addLast(call);
                }
                call.future = bulkhead.acquireAsync(call.signal);
                call.future.thenAccept(permit -> {
                    call.permit = permit;
                    for (Call earlier : calls.subList(0, call.id)) {
                        if (!earlier.future.isDone()) {
                            fifoViolations.add("call " + call.id + " granted while call " + earlier.id + " waits");
                        }
                    }
                });
            } else if (step instanceof Cancel cancel) {
                if (queue.isEmpty()) {
                    continue;
                }
                Call call = new ArrayList<>(queue).get(cancel.which() % queue.size());
                queue.remove(call);
                call.expected = Fate.CANCELLED;
                if (cancel.throughSignal()) {
                    call.signal.cancel();
                } else {
                    call.future.cancel(false);
                }
            } else if (step instanceof Release release) {
                if (holders.isEmpty()) {
                    continue;
                }
                Call holder = holders.remove(release.which() % holders.size());
                if (!queue.isEmpty() && model[1] <= model[0]) {
                    Call next = queue.pollFirst();
                    next.expected = Fate.GRANTED;
                    holders.add(next);
                } else {
                    model[1]--;
                }
                holder.permit.close();
            } else if (step instanceof Tick tick) {
                now += tick.millis();
                for (Call call : new ArrayList<>(queue)) {
                    if (call.arrivedAt + MAX_WAIT.toMillis() <= now) {
                        queue.remove(call);
                        call.expected = Fate.TIMED_OUT;
                    }
                }
                scheduler.advance(Duration.ofMillis(tick.millis()));
            } else if (step instanceof ChangeLimit change) {
                model[0] = change.limit();
                while (!queue.isEmpty() && model[1] < model[0]) {
                    model[1]++;
                    Call next = queue.pollFirst();
                    next.expected = Fate.GRANTED;
                    holders.add(next);
                }
                bulkhead.changeMaxConcurrency(change.limit());
            }

            assertThat(fifoViolations).isEmpty();
            assertThat(bulkhead.executingCount()).as("executing after %s", step).isEqualTo(model[1]);
            assertThat(bulkhead.queuedCount()).as("queued after %s", step).isEqualTo(queue.size());
            for (Call call : calls) {
                assertThat(fate(call)).as("call %d after %s", call.id, step).isEqualTo(call.expected);
            }
        }
    }

    private static Fate fate(Call call) {
        CompletableFuture<Permit> future = call.future;
        if (!future.isDone()) {
            return Fate.WAITING;
        }
        Throwable failure = future.handle((permit, thrown) -> thrown).join();
        if (failure == null) {
            return Fate.GRANTED;
        }
        if (failure instanceof CancellationException) {
            return Fate.CANCELLED;
        }
        if (failure instanceof BulkheadRejectedException rejected) {
            return rejected.rejection().reason() == Rejection.Reason.WAIT_TIMEOUT ? Fate.TIMED_OUT : Fate.REFUSED;
        }
        throw new AssertionError("unexpected failure", failure);
    }

    @Provide
    Arbitrary<List<Step>> schedules() {
        Arbitrary<Step> step = Arbitraries.frequencyOf(
                net.jqwik.api.Tuple.of(5, Arbitraries.just(new Arrive())),
                net.jqwik.api.Tuple.of(2, Arbitraries.integers().between(0, 10)
                        .flatMap(which -> Arbitraries.of(true, false).map(signal -> new Cancel(which, signal)))),
                net.jqwik.api.Tuple.of(3, Arbitraries.integers().between(0, 10).map(Release::new)),
                net.jqwik.api.Tuple.of(1, Arbitraries.integers().between(1, 40).map(Tick::new)),
                net.jqwik.api.Tuple.of(1, Arbitraries.integers().between(1, 4).map(ChangeLimit::new)));
        return step.list().ofMaxSize(60);
    }
}
