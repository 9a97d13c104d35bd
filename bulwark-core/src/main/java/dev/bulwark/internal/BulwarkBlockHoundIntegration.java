package dev.bulwark.internal;

import reactor.blockhound.BlockHound;
import reactor.blockhound.integration.BlockHoundIntegration;

/**
 * Tells BlockHound, when an application installs it, about the one wait Bulwark may make on a non-blocking thread:
 * taking a bulkhead's internal lock ({@link SpinThenParkLock#lock()}) while another thread holds it. The sections
 * behind that lock run no user code and last a few hundred nanoseconds; a contender spins for the holder (BlockHound
 * counts {@code Thread.onSpinWait} as blocking) and parks only if the holder was descheduled inside its section.
 * That is the same kind of wait Reactor's own integration allows inside {@code ScheduledThreadPoolExecutor}'s queue
 * lock. Only the lock's acquisition is allowed: a blocking call made while holding it, or on any other lock, is
 * still reported.
 *
 * <p>Found by BlockHound's {@link java.util.ServiceLoader} through {@code META-INF/services} on the class path;
 * BlockHound itself is an optional, compile-time-only dependency of this module.
 */
public final class BulwarkBlockHoundIntegration implements BlockHoundIntegration {

    /** Called by BlockHound's service loader. */
    public BulwarkBlockHoundIntegration() {
    }

    /** Allows waiting inside {@link SpinThenParkLock#lock()}, nothing else. */
    @Override
    public void applyTo(BlockHound.Builder builder) {
        builder.allowBlockingCallsInside(SpinThenParkLock.class.getName(), "lock");
    }
}
