package dev.bulwark.redis.internal.lease;

import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The leased mode's hash held in memory: the Java twin of {@link LeaseScripts#RENEW} (the record per instance, the
 * expired instances dropped, the division by {@link FairShares}, growth only from free capacity, the record
 * {@code max(grant, holding)}), for simulations in virtual time. {@code LeaseScriptOracleTest} checks it against
 * the script on a real Redis. The clock is the caller's: each call says what time it is, in milliseconds, where the
 * script reads the server's {@code TIME}.
 *
 * <p>Not thread-safe: one thread (a simulation's event loop) uses it. Each renewal costs O(instances), like the
 * script, but keeps the instances sorted by demand between calls instead of sorting them anew.
 */
final class LeaseTable {

    private static final Comparator<Entry> ORDER = Comparator.<Entry>comparingInt(entry -> entry.demand)
            .thenComparing(entry -> entry.id);

    /** One instance's fields: {@code b:}, {@code d:}, {@code x:} and {@code e:} in the hash. */
    private static final class Entry {
        final String id;
        int block;
        int demand;
        int executing;
        long expiry;

        Entry(String id) {
            this.id = id;
        }
    }

    private final Map<String, Entry> byId = new HashMap<>();
    /** The same entries in the script's order: by demand, then by id. */
    private final List<Entry> sorted = new ArrayList<>();
    private Integer limit;
    private long recordedSum;

    /** Sets the fleet's limit, as {@link LeaseScripts#SET_LIMIT} does. */
    void setLimit(int limit) {
        this.limit = limit;
    }

    /**
     * Renews (or, with {@code leaving}, ends) an instance's lease, exactly as {@link LeaseScripts#RENEW} does.
     *
     * @param now the time, in milliseconds (the script's {@code TIME})
     * @return {@code {grant, limit, live instances, sum of records}}
     */
    long[] renew(String id, int demand, int holding, long ttlMillis, int initialLimit, boolean leaving,
                 int executing, long now) {
        if (limit == null) {
            limit = initialLimit;
        }
        dropExpired(id, now);
        Entry mine = byId.get(id);
        if (mine != null) {
            remove(mine);
        }
        long others = recordedSum;
        if (leaving) {
            return new long[] {0, limit, 0, others};
        }
        mine = new Entry(id);
        mine.demand = demand;
        int position = insertionPoint(mine);
        sorted.add(position, mine);
        byId.put(id, mine);
        int[] demands = new int[sorted.size()];
        for (int i = 0; i < demands.length; i++) {
            demands[i] = sorted.get(i).demand;
        }
        int target = FairShares.shares(limit, demands, demands.length)[position];
        int grant = FairShares.grant(target, limit, (int) Math.min(Integer.MAX_VALUE, others));
        int record = FairShares.record(grant, holding);
        mine.block = record;
        mine.executing = executing;
        mine.expiry = now + ttlMillis;
        recordedSum += record;
        return new long[] {grant, limit, sorted.size(), others + record};
    }

    /**
     * Writes an instance's fields as they are (for tests that set up the same hash in Redis and here).
     */
    void put(String id, int block, int demand, int executing, long expiry) {
        Entry old = byId.get(id);
        if (old != null) {
            remove(old);
        }
        Entry entry = new Entry(id);
        entry.block = block;
        entry.demand = demand;
        entry.executing = executing;
        entry.expiry = expiry;
        sorted.add(insertionPoint(entry), entry);
        byId.put(id, entry);
        recordedSum += block;
    }

    /** The sum of the recorded blocks, expired ones included until a renewal drops them. */
    long recordedSum() {
        return recordedSum;
    }

    /** An instance's recorded block, or -1 when it has no record. */
    int block(String id) {
        Entry entry = byId.get(id);
        return entry == null ? -1 : entry.block;
    }

    /** The instances with a record, expired ones included until a renewal drops them. */
    int records() {
        return sorted.size();
    }

    private void dropExpired(String renewing, long now) {
        boolean any = false;
        for (Entry entry : sorted) {
            any |= entry.expiry <= now && !entry.id.equals(renewing);
        }
        if (any) {
            sorted.removeIf(entry -> {
                boolean expired = entry.expiry <= now && !entry.id.equals(renewing);
                if (expired) {
                    byId.remove(entry.id);
                    recordedSum -= entry.block;
                }
                return expired;
            });
        }
    }

    private void remove(Entry entry) {
        int at = Collections.binarySearch(sorted, entry, ORDER);
        sorted.remove(at);
        byId.remove(entry.id);
        recordedSum -= entry.block;
    }

    private int insertionPoint(Entry entry) {
        int at = Collections.binarySearch(sorted, entry, ORDER);
        return at >= 0 ? at : -at - 1;
    }
}
