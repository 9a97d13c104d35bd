package dev.bulwark;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The soak: the mixed workload of {@link MixedWorkload} (sync, async, permits, cancellations, timeouts, a pipeline
 * with retry and timeout, limit changes, interrupts) for {@code -Dbulwark.soak.seconds} (40 by default), in epochs
 * of at most 10 s; after each epoch every call must have ended and the bulkhead must be quiet and exact. On JDK 21+
 * the time is split between platform and virtual threads; on JDK 17 platform threads get all of it.
 */
@Tag("slow")
class BulkheadSoakTest {

    private static final int SECONDS = Integer.getInteger("bulwark.soak.seconds", 40);
    private static final boolean VIRTUAL_THREADS = Runtime.version().feature() >= 21;

    @Test
    @DisplayName("soak on platform threads")
    void soakOnPlatformThreads() throws Exception {
        soak("platform", VIRTUAL_THREADS ? SECONDS / 2 : SECONDS, false);
    }

    @Test
    @DisplayName("soak on virtual threads (JDK 21+)")
    void soakOnVirtualThreads() throws Exception {
        assumeTrue(VIRTUAL_THREADS, "virtual threads need JDK 21+");
        soak("virtual", SECONDS - SECONDS / 2, true);
    }

    private static void soak(String kind, int seconds, boolean virtual) throws Exception {
        MixedWorkload workload = new MixedWorkload(false, Scheduler.shared());
        try {
            int epoch = 0;
            for (int left = seconds; left > 0; left -= 10) {
                workload.runEpoch(virtual ? MixedWorkload.virtualThreads() : MixedWorkload.platformThreads(kind),
                        virtual ? 64 : 8, Math.min(10, left), ++epoch);
            }
            System.out.printf("soak on %s threads for %d s in %d epochs: %s%n", kind, seconds, epoch,
                    workload.summary());
        } finally {
            workload.shutdown();
        }
    }
}
