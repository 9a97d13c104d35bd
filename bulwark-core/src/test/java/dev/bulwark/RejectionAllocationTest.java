package dev.bulwark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Issue 20: a refusal of a full queue allocates its exception alone (at most 48 bytes) when nobody needs its
 * {@link Rejection} at once, and the exception's rejection is then built on demand with the same values that the
 * eager path reports to listeners and handlers.
 */
class RejectionAllocationTest {

    private static final int CALLS = 200_000;

    private static BulkheadRejectedException refuse(Bulkhead bulkhead) {
        return catchThrowableOfType(BulkheadRejectedException.class, () -> bulkhead.call(() -> "never"));
    }

    @Test
    void aRefusalAllocatesOneSmallObject() {
        Bulkhead bulkhead = Bulkhead.builder().name("full").maxConcurrency(1).maxQueue(0).build();
        Permit held = bulkhead.acquire();
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        double least = Double.MAX_VALUE;
        Object sink = null;
        // The least of several rounds, as many as it takes the JIT to compile the refusal path (on a loaded machine
        // the compiler threads can lag for a million calls; until then the interpreter allocates what the compiled
        // code does not), at most 48 rounds: a refusal that really allocates more never gets below the bound.
        for (int round = 0; round < 48 && least > 48.0; round++) {
            long before = threads.getCurrentThreadAllocatedBytes();
            for (int i = 0; i < CALLS; i++) {
                try {
                    bulkhead.call(() -> "never");
                } catch (BulkheadRejectedException refused) {
                    sink = refused;
                }
            }
            least = Math.min(least, (double) (threads.getCurrentThreadAllocatedBytes() - before) / CALLS);
        }
        held.close();
        assertThat(sink).isNotNull();
        assertThat(least).as("bytes allocated per refusal").isLessThanOrEqualTo(48.0);
    }

    @Test
    void theRejectionBuiltOnDemandHasTheFactsOfTheMomentAndStaysTheSame() {
        Bulkhead bulkhead = Bulkhead.builder().name("db").maxConcurrency(2).maxQueue(1).build();
        List<Permit> held = new ArrayList<>(List.of(bulkhead.acquire(), bulkhead.acquire()));
        Thread waiter = new Thread(() -> {
            try (Permit permit = bulkhead.acquire()) {
                permit.isReleased();
            }
        });
        waiter.start();
        org.awaitility.Awaitility.await().until(() -> bulkhead.queuedCount() == 1);

        BulkheadRejectedException refused = refuse(bulkhead);

        Rejection rejection = refused.rejection();
        assertThat(rejection).isEqualTo(new Rejection("db", Rejection.Reason.QUEUE_FULL, 2, 1, 2, 1, Duration.ZERO));
        assertThat(refused.rejection()).isSameAs(rejection);
        assertThat(refused.getMessage())
                .isEqualTo("Bulkhead 'db' rejected the call: QUEUE_FULL (executing 2 of 2, queued 1 of 1)");
        held.forEach(Permit::close);
        org.awaitility.Awaitility.await().until(() -> !waiter.isAlive());
    }

    @Test
    void aLimitChangeIsInTheNextRefusalsFacts() {
        Bulkhead bulkhead = Bulkhead.builder().name("db").maxConcurrency(1).maxQueue(0).build();
        Permit first = bulkhead.acquire();
        assertThat(refuse(bulkhead).rejection().maxConcurrency()).isEqualTo(1);

        bulkhead.changeMaxConcurrency(2);
        Permit second = bulkhead.acquire();
        Rejection after = refuse(bulkhead).rejection();

        assertThat(after).isEqualTo(new Rejection("db", Rejection.Reason.QUEUE_FULL, 2, 0, 2, 0, Duration.ZERO));
        bulkhead.changeMaxConcurrency(1);
        Rejection lowered = refuse(bulkhead).rejection();
        assertThat(lowered).isEqualTo(new Rejection("db", Rejection.Reason.QUEUE_FULL, 1, 0, 2, 0, Duration.ZERO));
        first.close();
        second.close();
    }

    @Test
    void listenersAndHandlersGetTheSameFactsAsTheException() {
        List<Rejection> handled = new ArrayList<>();
        List<Rejection> heard = new ArrayList<>();
        Bulkhead bulkhead = Bulkhead.builder().name("db").maxConcurrency(1).maxQueue(0).onRejected(handled::add)
                .listener(new BulkheadListener() {
                    @Override
                    public void rejected(Rejection rejection) {
                        heard.add(rejection);
                    }
                }).build();
        Permit held = bulkhead.acquire();

        BulkheadRejectedException refused = refuse(bulkhead);

        assertThat(handled).containsExactly(refused.rejection());
        assertThat(heard).containsExactly(refused.rejection());
        held.close();
    }
}
