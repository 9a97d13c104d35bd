/**
 * Bulwark on Redis: a bulkhead whose limit and queue are shared by every instance of a service.
 *
 * <p>Only {@code dev.bulwark.redis} is exported; {@code dev.bulwark.redis.internal} is implementation. The core
 * API and Lettuce are required transitively because the public API speaks of both.
 */
module dev.bulwark.redis {
    requires transitive dev.bulwark;
    requires transitive lettuce.core;
    // Netty (which Lettuce brings) for the command connection's event loop, where releases are flushed.
    requires io.netty.common;
    requires io.netty.transport;

    exports dev.bulwark.redis;
}
