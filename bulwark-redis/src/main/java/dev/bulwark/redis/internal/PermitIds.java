package dev.bulwark.redis.internal;

import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Makes permit and waiter ids that are unique across the cluster and never reused: a random 96-bit instance
 * prefix and a per-instance sequence number. Uniqueness is what makes a late or repeated release harmless: it can
 * only ever remove the id it names. Ids contain no spaces (grant messages are space-separated) and never start
 * with {@code !} or {@code ~} (the prefixes of refusal and eviction notices).
 */
final class PermitIds {

    private final String prefix;
    private final AtomicLong sequence = new AtomicLong();

    PermitIds() {
        byte[] random = new byte[12];
        new SecureRandom().nextBytes(random);
        this.prefix = HexFormat.of().formatHex(random) + '-';
    }

    /**
     * A new id for a call of {@code weight} slots: a weighted call's id ends in {@code #weight}, which is how the
     * scripts know how many slots it takes (see {@link LuaScripts}).
     */
    String next(int weight) {
        String id = prefix + Long.toString(sequence.incrementAndGet(), 36);
        return weight == 1 ? id : id + '#' + weight;
    }
}
