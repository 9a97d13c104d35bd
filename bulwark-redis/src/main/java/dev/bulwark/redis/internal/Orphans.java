package dev.bulwark.redis.internal;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Ids whose state in Redis is unknown to this instance: an acquire whose reply never came (the script may or may
 * not have run), or a release that failed. The lease keeper sends a release for them with every heartbeat until
 * Redis confirms it removed something or one lease has passed (after which Redis has dropped anything left by
 * itself). This recovers the slot well before the lease would, and catches an acquire that Redis executes late.
 * Thread-safe.
 */
final class Orphans {

    private final Map<String, Long> retryUntil = new ConcurrentHashMap<>();

    void add(String id, long until) {
        retryUntil.merge(id, until, Math::max);
    }

    boolean isEmpty() {
        return retryUntil.isEmpty();
    }

    List<String> snapshot(int max) {
        List<String> ids = new ArrayList<>(Math.min(max, retryUntil.size()));
        for (String id : retryUntil.keySet()) {
            if (ids.size() == max) {
                break;
            }
            ids.add(id);
        }
        return ids;
    }

    /** Forgets an id once Redis removed it, or once retrying is pointless. */
    void settled(String id, boolean removedSomething, long now) {
        retryUntil.computeIfPresent(id, (key, until) -> removedSomething || now - until >= 0 ? null : until);
    }
}
