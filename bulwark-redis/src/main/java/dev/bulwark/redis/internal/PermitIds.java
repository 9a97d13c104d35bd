package dev.bulwark.redis.internal;

import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Makes permit and waiter ids that are unique across the cluster and never reused: a random 96-bit instance
 * prefix and a per-instance sequence number. Uniqueness is what makes a late or repeated release harmless: it can
 * only ever remove the id it names. Ids contain no spaces (grant messages are space-separated).
 */
final class PermitIds {

    private final String prefix;
    private final AtomicLong sequence = new AtomicLong();

    PermitIds() {
        byte[] random = new byte[12];
        new SecureRandom().nextBytes(random);
        this.prefix = HexFormat.of().formatHex(random) + '-';
    }

    String next() {
        return prefix + Long.toString(sequence.incrementAndGet(), 36);
    }
}
