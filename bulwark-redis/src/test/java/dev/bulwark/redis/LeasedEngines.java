package dev.bulwark.redis;

import dev.bulwark.redis.internal.BulkheadEngine;

/** For the leased mode's tests in its internal package: the engine behind a {@link RedisBulkhead}. */
public final class LeasedEngines {

    private LeasedEngines() {
    }

    /** The bulkhead's engine. */
    public static BulkheadEngine engine(RedisBulkhead bulkhead) {
        return bulkhead.engine;
    }
}
