package dev.bulwark.benchmarks.conformance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.bulwark.benchmarks.subjects.AsyncWork;
import dev.bulwark.benchmarks.subjects.Subject;
import dev.bulwark.benchmarks.subjects.SubjectSpec;
import dev.bulwark.benchmarks.subjects.Subjects;
import dev.bulwark.benchmarks.subjects.Work;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.locks.ReentrantLock;
import org.junit.jupiter.api.Test;

/** The gate that keeps broken bulkheads out of the figures: it must pass correct ones and catch broken ones. */
class ConformanceCheckTest {

    @Test
    void bulwarkPassesEveryCheck() {
        Map<Check, Verdict> verdicts = Conformance.checkAll(Subjects.BULWARK);

        assertThat(verdicts).hasSize(Check.values().length);
        assertThat(verdicts.values()).allSatisfy(verdict -> assertThat(verdict.passed()).as(verdict.detail()).isTrue());
    }

    @Test
    void aFairSemaphoreIsFifoButCannotWaitWithoutAThread() {
        Map<Check, Verdict> verdicts = Conformance.checkAll(Subjects.SEMAPHORE_FAIR);

        assertThat(verdicts.get(Check.SYNC_LIMIT).passed()).isTrue();
        assertThat(verdicts.get(Check.ASYNC_LIMIT).passed()).isTrue();
        assertThat(verdicts.get(Check.SYNC_FIFO).passed()).isTrue();
        assertThat(verdicts.get(Check.ASYNC_WAIT).passed()).isFalse();
        assertThat(verdicts.get(Check.ASYNC_WAIT).detail()).contains("blocked its thread");
    }

    @Test
    void resilience4jBlocksItsCallerWhenAnAsyncCallMustWait() {
        Verdict verdict = new ConformanceCheck(spec -> Subjects.create(Subjects.RESILIENCE4J, spec))
                .run(Check.ASYNC_WAIT);

        assertThat(verdict.passed()).isFalse();
        assertThat(verdict.detail()).contains("blocked its thread");
    }

    @Test
    void failsafeThroughItsExecutorLosesAPermitToEveryRefusedSyncCall() {
        // Failsafe issue #393: the refused call's waiter stays queued and the next release hands it the permit.
        Verdict verdict = new ConformanceCheck(spec -> Subjects.create(Subjects.FAILSAFE, spec)).run(Check.SYNC_LIMIT);

        assertThat(verdict.passed()).isFalse();
        assertThat(verdict.detail()).contains("after the first refusal and release");
    }

    @Test
    void failsafeUsedStandaloneKeepsItsPermits() {
        Verdict verdict = new ConformanceCheck(spec -> Subjects.create(Subjects.FAILSAFE_PERMIT, spec))
                .run(Check.SYNC_LIMIT);

        assertThat(verdict.passed()).as(verdict.detail()).isTrue();
    }

    @Test
    void aBulkheadThatNeverRefusesFailsTheLimitChecks() {
        ConformanceCheck checker = new ConformanceCheck(spec -> new Unlimited());

        Verdict sync = checker.run(Check.SYNC_LIMIT);
        Verdict async = checker.run(Check.ASYNC_LIMIT);

        assertThat(sync.passed()).isFalse();
        assertThat(sync.detail()).contains("ran a call beyond the limit");
        assertThat(async.passed()).isFalse();
        assertThat(async.detail()).contains("started a call beyond the limit");
    }

    @Test
    void waitersServedLastComeFirstFailTheFifoCheck() {
        Verdict verdict = new ConformanceCheck(spec -> new LastComeFirstServed()).run(Check.SYNC_FIFO);

        assertThat(verdict.passed()).isFalse();
        assertThat(verdict.detail()).startsWith("the slot went to waiter-3, ");
    }

    @Test
    void theGateNamesTheSubjectAndTheFailedCheck() {
        assertThatThrownBy(() -> Conformance.require(Subjects.FAILSAFE, Check.SYNC_LIMIT))
                .isInstanceOf(NonConformingSubjectException.class)
                .hasMessageContaining("NOT MEASURED")
                .hasMessageContaining("'failsafe'")
                .hasMessageContaining("SYNC_LIMIT");
    }

    @Test
    void theGateLetsAConformingSubjectThrough() {
        Conformance.require(Subjects.BULWARK, Check.values());
    }

    /** Admits everything: the limit is ignored. */
    private static final class Unlimited implements Subject {
        @Override
        public String name() {
            return "unlimited";
        }

        @Override
        public Object call(Work work) {
            return work.get();
        }

        @Override
        public CompletableFuture<Object> callAsync(AsyncWork work) {
            return work.get().toCompletableFuture();
        }

        @Override
        public Slot occupy() {
            return () -> { };
        }

        @Override
        public boolean isRefusal(Object result) {
            return false;
        }

        @Override
        public boolean isRefusal(Throwable failure) {
            return false;
        }
    }

    /** One slot whose waiters are served newest first: deterministic unfairness. */
    private static final class LastComeFirstServed implements Subject {
        private final ReentrantLock lock = new ReentrantLock();
        private final Deque<CountDownLatch> waiters = new ArrayDeque<>();
        private boolean held;

        @Override
        public String name() {
            return "lifo";
        }

        @Override
        public Object call(Work work) {
            CountDownLatch mine = null;
            lock.lock();
            try {
                if (held) {
                    mine = new CountDownLatch(1);
                    waiters.push(mine);
                } else {
                    held = true;
                }
            } finally {
                lock.unlock();
            }
            if (mine != null) {
                try {
                    mine.await();
                } catch (InterruptedException interrupted) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException(interrupted);
                }
            }
            try {
                return work.get();
            } finally {
                CountDownLatch next;
                lock.lock();
                try {
                    next = waiters.poll();
                    held = next != null;
                } finally {
                    lock.unlock();
                }
                if (next != null) {
                    next.countDown();
                }
            }
        }

        @Override
        public CompletableFuture<Object> callAsync(AsyncWork work) {
            throw new UnsupportedOperationException("sync only");
        }

        @Override
        public Slot occupy() {
            throw new UnsupportedOperationException("sync only");
        }

        @Override
        public boolean isRefusal(Object result) {
            return false;
        }

        @Override
        public boolean isRefusal(Throwable failure) {
            return false;
        }
    }

    @Test
    void specsRejectNonsense() {
        assertThatThrownBy(() -> SubjectSpec.refusing(0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("limit");
        assertThatThrownBy(() -> SubjectSpec.queueing(1, 0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("queue");
    }
}
