package dev.bulwark.redis.internal;

/**
 * The Redis keys and the channel of one bulkhead. Every name carries the hash tag {@code {name}}, so all keys of
 * a bulkhead map to one Redis Cluster slot and one script can touch them all.
 */
final class BulkheadKeys {

    private final String bulkheadName;
    private final String[] all;
    private final String channel;

    BulkheadKeys(String bulkheadName) {
        this.bulkheadName = bulkheadName;
        String prefix = "bulwark:{" + bulkheadName + "}:";
        this.all = new String[] {prefix + "holders", prefix + "queue", prefix + "waiters", prefix + "config",
                prefix + "tickets", prefix + "extra"};
        this.channel = prefix + "granted";
    }

    /** Holders, queue, waiters, config, tickets, extra: the {@code KEYS} of every script. Shared: never modify it. */
    String[] all() {
        return all;
    }

    /** The bulkhead's name, for messages. */
    String bulkheadName() {
        return bulkheadName;
    }

    String channel() {
        return channel;
    }
}
