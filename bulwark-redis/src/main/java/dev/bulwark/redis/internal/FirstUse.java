package dev.bulwark.redis.internal;

import dev.bulwark.Bulkhead;
import dev.bulwark.Permit;
import dev.bulwark.Rejection;
import java.lang.invoke.MethodHandles;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Pays, once per JVM and inside the first {@code RedisBulkhead}'s {@code build()}, what that bulkhead's first
 * callers would otherwise pay on their own threads for the client-side half of a call: loading and initialising the
 * classes of the admission, refusal, wait and grant paths.
 *
 * <p><b>Why.</b> Measured in fresh JVMs (issue 37, {@code RedisFirstCallsTest}), the first calls of a JVM spent
 * several milliseconds of CPU each beyond a warm call's round trip on work that does not depend on Redis at all:
 * the core's refusal exception and its access classes, the outcome of a cancelled or timed-out wait, the
 * executor's first worker thread (an async refusal or grant is delivered there), and this module's waiter and
 * permit classes. The first async refusal loaded 8 to 10 classes and took 11 to 13 ms of CPU, the first async
 * grant 13 to 16 classes and 22 to 24 ms, against 1 to 3 and 4 to 9 ms warm; with this, 3 and 6 classes, 5 to 6 and
 * 11 to 14 ms.
 *
 * <p><b>How.</b> The core bulkhead's own first construction rehearses every slow path of the core on private
 * bulkheads (its {@code FirstUse}); building one private in-process bulkhead here triggers that rehearsal, which
 * this module's calls share (the same exception, outcomes, cancellation signals, common-pool worker and timer
 * thread). Then the classes this module's calls load on their first use are initialised. Nothing here talks to
 * Redis: a rehearsal against the user's server would leave keys there. The call paths' own lambdas still link on
 * their first use (about a millisecond in all).
 *
 * <p>Honours the core's switch: with the system property {@code dev.bulwark.rehearseFirstUse} set to
 * {@code false} nothing is done, and the first callers pay instead. A failure is logged at DEBUG and changes
 * nothing else. No static initialiser here waits on another class: the state is one atomic flag, and the work
 * runs from {@code build()}, never from a class initialiser.
 */
final class FirstUse {

    private static final System.Logger LOGGER = System.getLogger("dev.bulwark.redis.RedisBulkhead");

    /** The core's switch (its {@code FirstUse.SWITCH}): {@code false} turns every rehearsal off. */
    static final String SWITCH = "dev.bulwark.rehearseFirstUse";

    private static final AtomicBoolean STARTED = new AtomicBoolean();

    private FirstUse() {
    }

    /** Prepares once per JVM; see the class documentation. Cheap afterwards (one volatile read). Never throws. */
    static void prepare() {
        if (STARTED.get() || !STARTED.compareAndSet(false, true)) {
            return;
        }
        if ("false".equalsIgnoreCase(System.getProperty(SWITCH))) {
            return;
        }
        try {
            // A private bulkhead nobody calls: its construction runs the core's rehearsal once per JVM.
            Bulkhead.builder().name("bulwark-redis-rehearsal").maxConcurrency(1).build();
            MethodHandles.Lookup lookup = MethodHandles.lookup();
            for (Class<?> type : new Class<?>[] {SyncWaiter.class, AsyncWaiter.class, RemotePermit.class,
                UnbackedPermit.class, Permit.Outcome.class, Rejection.Reason.class}) {
                lookup.ensureInitialized(type);
            }
            // A private record, out of the lookup's reach: initialised by name.
            Class.forName(ReleaseOutbox.class.getName() + "$Node", true, FirstUse.class.getClassLoader());
        } catch (ReflectiveOperationException | RuntimeException | LinkageError failure) {
            LOGGER.log(System.Logger.Level.DEBUG, "Bulwark's Redis first-use preparation failed; first calls pay it",
                    failure);
        }
    }
}
