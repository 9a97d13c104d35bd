package dev.bulwark.benchmarks.subjects;

import dev.failsafe.Bulkhead;
import dev.failsafe.BulkheadFullException;
import dev.failsafe.Failsafe;
import dev.failsafe.FailsafeExecutor;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;

/**
 * Failsafe's bulkhead policy run by a {@link FailsafeExecutor}, the usage Failsafe's documentation leads with:
 * {@code Failsafe.with(bulkhead).get(...)} and {@code getStageAsync(...)}; {@code withMaxWaitTime} is set only when
 * the scenario queues.
 *
 * <p>Asynchronous executions run on a {@link CallerThreadScheduler} instead of Failsafe's default
 * {@code ForkJoinPool.commonPool()}, so that, as for every other subject, the operation starts on the calling
 * thread and the figures hold the bulkhead's cost, not a thread hop. That favours Failsafe.
 *
 * <p>Known defect (Failsafe issue #393, open in 3.3.2): a synchronous execution refused by the bulkhead leaves its
 * abandoned waiter in the bulkhead's queue; the next release hands that waiter the permit, which nobody returns. The
 * conformance check finds it and the synchronous rows of this subject are reported as failing, not measured.
 *
 * <p>With a queue, each asynchronous call that waits schedules a timeout task for {@code maxWait} that Failsafe does
 * not cancel when the permit comes, so the timer holds one task per queued call until its deadline passes. That is
 * Failsafe's cost and stays in its figures.
 */
final class FailsafeSubject implements Subject {

    private final String name;
    private final Bulkhead<Object> bulkhead;
    private final FailsafeExecutor<Object> executor;

    FailsafeSubject(String name, SubjectSpec spec) {
        this.name = name;
        this.bulkhead = Bulkhead.builder(spec.limit())
                .withMaxWaitTime(spec.waits() ? spec.maxWait() : Duration.ZERO)
                .build();
        this.executor = Failsafe.with(bulkhead).with(CallerThreadScheduler.INSTANCE);
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public Object call(Work work) {
        try {
            return executor.get(work);
        } catch (BulkheadFullException refused) {
            return refused;
        }
    }

    @Override
    public CompletableFuture<Object> callAsync(AsyncWork work) {
        return executor.getStageAsync(work);
    }

    @Override
    public Slot occupy() {
        if (!bulkhead.tryAcquirePermit()) {
            throw new IllegalStateException(name + ": no free permit to occupy");
        }
        return bulkhead::releasePermit;
    }

    @Override
    public boolean isRefusal(Object result) {
        return result instanceof BulkheadFullException;
    }

    @Override
    public boolean isRefusal(Throwable failure) {
        return failure instanceof BulkheadFullException;
    }
}
