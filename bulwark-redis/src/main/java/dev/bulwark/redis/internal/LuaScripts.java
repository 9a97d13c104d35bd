package dev.bulwark.redis.internal;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * The server-side half of the cluster-wide bulkhead: five Lua scripts that share one prelude. Every state change
 * happens inside one of them, so each is atomic on the Redis server.
 *
 * <h2>Data model</h2>
 * All keys of a bulkhead named {@code N} carry the hash tag {@code {N}}, so they live in one slot and the scripts
 * run unchanged on Redis Cluster.
 * <ul>
 *   <li>{@code bulwark:{N}:holders} (sorted set): one member per permit held anywhere in the cluster, scored by
 *       its lease expiry in server milliseconds.</li>
 *   <li>{@code bulwark:{N}:extra} (string, absent when 0): the slots weighted holders take beyond one each, so
 *       the slots in use are {@code ZCARD holders + extra}. A weighted call's id ends in {@code #weight}; an id
 *       without it weighs 1, so unweighted calls cost what they did before weights.</li>
 *   <li>{@code bulwark:{N}:queue} (sorted set): one member per waiting call, scored by
 *       {@code priority ordinal x 2^48 + ticket}, so the lowest score is the oldest arrival of the highest
 *       priority (exact in a double while tickets stay below 2^48).</li>
 *   <li>{@code bulwark:{N}:waiters} (sorted set): the same members as the queue, scored by their lease
 *       expiry, plus a tombstone {@code ~id} for each waiter a higher-priority newcomer evicted, scored by the
 *       lease expiry it had, so that an instance that missed the eviction notice (a pub/sub reconnect) learns it
 *       from its next renew instead of taking its waiter for lost; the purge drops it with the expired
 *       waiters. It costs nothing unless someone is evicted: no extra key for every script to carry.</li>
 *   <li>{@code bulwark:{N}:config} (hash): {@code maxConcurrency}, {@code maxQueue}, {@code maxWaitNanos}
 *       (0 for no bound) shared by every instance; with a self-tuning adaptive limit also {@code decider} and
 *       {@code deciderUntil} (server ms), the instance whose decisions alone apply until then. A limit that is
 *       present but not a whole number in range (only a writer other than these scripts can make one) is never
 *       read as a limit: a script that would admit, queue or grant answers with an error reply
 *       {@code BULWARK_CONFIG <key> field <name> holds "<value>", ...} before it does (a release still frees
 *       what it releases first: that only lowers the slots in use), and {@link #CONFIGURE} repairs the field it
 *       sets.</li>
 *   <li>{@code bulwark:{N}:tickets} (string): the ticket counter ({@code INCR}).</li>
 *   <li>Channel {@code bulwark:{N}:granted}: each message lists, separated by spaces, the ids just granted, the
 *       ids refused because their weight exceeds a lowered limit (as {@code !limit:id}) and the ids evicted by a
 *       newcomer of a higher priority (prefixed {@code ~}).</li>
 * </ul>
 * Permit and waiter ids are unique per call ({@code instance id + sequence number}); a waiter that is granted
 * keeps its id as its permit id.
 *
 * <h2>Invariants</h2>
 * Every script starts by reading {@code TIME} (the only clock used for leases). {@code purge} drops every
 * holder and waiter whose lease expiry is at or before now, and {@code grant} hands free slots to the head of
 * the queue; the fast paths of acquire and release (see "Cost") skip both when they cannot change anything.
 * After every script:
 * <ol>
 *   <li>no waiter in {@code queue} has an expired lease; a member of {@code holders} whose lease expired
 *       may remain until the next purge, but it never takes a slot from a live call: the fast acquire counts
 *       every holder, expired or not, plus {@code extra} (both can only over-count, so it never over-admits) and
 *       leaves every case where that count says "full" to the full path, which purges first and decides exactly,
 *       and so do renew, counts and configure; a release reports an expired holder as unknown (0), as if it had
 *       been purged;</li>
 *   <li>{@code queue} and {@code waiters} hold exactly the same members, but for the eviction tombstones
 *       ({@code ~id}, never a call's id: ids contain no {@code ~}) in {@code waiters}; an expired one may stay
 *       until the next purge (the fast paths skip it), and only renew reads them, after its purge;</li>
 *   <li>if {@code queue} is not empty then the slots in use plus the head's weight exceed {@code maxConcurrency}:
 *       the head never stays queued while its slots are free, and a newcomer takes slots only when nobody waits,
 *       so nobody barges past a waiter, and a head needing 3 slots is not passed by later 1-slot callers (strict
 *       FIFO within a priority; a higher priority is served first);</li>
 *   <li>the slots in use grow only through {@code acquire} (when they stay within {@code maxConcurrency} and the
 *       queue is empty) or {@code grant} (while the head fits), so they never exceed the limit except after the
 *       limit was lowered; {@code extra} changes with exactly the holders of weight above 1 that enter or leave
 *       {@code holders} (by grant, release or expiry), so a permit gives back exactly its weight, once;</li>
 *   <li>no queued weight exceeds {@code maxConcurrency}: {@code acquire} refuses such a call, {@code configure}
 *       removes every such waiter when the limit is lowered, and {@code grant} removes a head that exceeds it;</li>
 *   <li>a member is in at most one of {@code holders} and {@code queue}; a granted waiter moves from the queue to
 *       the holders with the lease expiry it had as a waiter, and its id is published.</li>
 * </ol>
 *
 * <h2>Cost</h2>
 * Server time, not round trips, is what an uncontended call costs (one awaited acquire, one release nobody waits
 * for), and each script has a fixed cost of its own on the server (about as much as five of its commands), so an
 * instance's release usually rides on its next acquire: {@code ACQUIRE} releases {@code ARGV[6..]} first, exactly
 * as {@code RELEASE} would, then decides. It needs no grant of its own for them: if anyone waits, the acquire
 * takes the full path, whose purge and grant hand the freed slots to the head before the caller (invariant 3
 * holds when the script ends, and nobody barges); if nobody waits, nobody can take them. Only the client decides
 * what rides along ({@code ReleaseOutbox}): a release with no script to carry it is sent alone within one
 * hand-off to the connection's event loop, so a waiter elsewhere never waits for this instance's next call.
 *
 * <p>The uncontended acquire (at most one release carried) and the lone release of one id are decided by
 * {@link LuaFastPaths}, which runs right after {@code CLOCK}, before any helper exists, and either decides and
 * returns or has written nothing, so the general path below it decides exactly as if it had not run: the
 * acquire's runs {@code TIME}, {@code HMGET} (limits), {@code EXISTS} (queue and extra, one command),
 * {@code ZSCORE} (the carried id), {@code ZCARD} (holders), {@code ZREM} (the carried holder) and {@code ZADD}:
 * 7 commands, 5 without a release carried, plus {@code GET} (extra) while a weighted call holds a permit and
 * {@code INCRBY} for weights; the release's {@code TIME}, {@code EXISTS}, {@code ZSCORE}, {@code ZREM}. Anything else
 * (someone waits, the slots look taken, the weight exceeds the limit, several releases carried, limits to initialize)
 * takes the general path: the release of every carried id, then the same fast decision for several carried ids, else
 * the purge and the grant. Expired holders left by this laziness (a killed instance's permits) are dropped by the next
 * full path: a renew (each heartbeat or poll of an instance holding or awaiting a permit), counts, configure, or an
 * acquire that finds the slots taken or a queue.
 *
 * <p>The Lua around the commands costs server time too (measured in {@link LuaFastPaths}): each
 * {@code local function} is a closure built anew by every run of the script, so the fast paths use none, and the
 * helpers ({@code HEAD}, {@code FULL}) are defined after them, where only the general paths reach them. The
 * weight is read with a plain {@code string.find}, not a pattern, and a lease expiry goes to {@code ZADD} as an
 * integer string (Redis would format a Lua number with {@code %.17g}). Every argument costs the client and the
 * server a little, so the limits travel as one ({@code ARGV[1]}) and the channel is derived from the holders'
 * key.
 *
 * <h2>Scripts</h2>
 * <ul>
 *   <li>{@link #ACQUIRE}: first releases the ids it carries (as {@link #RELEASE}, see "Cost"), then takes the
 *       caller's slots if they are free and nobody waits; else queues the caller (when
 *       allowed and the queue has room, or when the newest waiter of the lowest priority is of a lower priority
 *       than the caller: that one is evicted) with the next ticket of its priority; else refuses. Replies with
 *       the outcome, the counts and the cluster-wide limits.</li>
 *   <li>{@link #RELEASE}: for each id, removes it from the holders (a release) or from the queue (a waiter giving
 *       up), then grants if anyone waits. Releasing an id that is neither (its lease expired, Redis restarted) changes
 *       nothing, which is why a lost permit can never free a slot that someone else holds. Because a grant that raced a
 *       cancellation shows up here as a holder, a waiter that gave up never keeps a slot.</li>
 *   <li>{@link #RENEW}: the heartbeat and the poll. Extends the lease of each id still known, and tells for each
 *       whether it is a holder (1: for a waiter this means it was granted), a waiter (2), a waiter evicted by a
 *       higher priority (3) or unknown (0: lost).</li>
 *   <li>{@link #COUNTS}: the cluster-wide counts and limits.</li>
 *   <li>{@link #CONFIGURE}: sets one limit cluster-wide, then grants (raising the limit admits waiters); with an
 *       expected value, only if the limit still holds it (the adaptive limit's compare-and-set).</li>
 * </ul>
 * Arguments common to all: {@code KEYS} = holders, queue, waiters, config, tickets, extra (every key a script may
 * touch is declared, as Redis requires of scripts and as Redis Cluster and proxies route by); {@code ARGV[1]} =
 * {@code maxConcurrency:maxQueue:maxWaitNanos}, the limits that initialize the config hash when it is missing
 * (first use, or after a restart lost it); each script's own arguments from {@code ARGV[2]}. The grant channel is
 * the holders' key with {@code granted} in place of {@code holders}.
 */
public final class LuaScripts {

    /** The keys and the server's clock: what every script reads first. */
    private static final String CLOCK = """
            local holders, queue, waiters, config, tickets, extra = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[6]
            local clock = redis.call('TIME')
            local now = tonumber(clock[1]) * 1000 + math.floor(tonumber(clock[2]) / 1000)
            """;

    /**
     * The helpers every script's general path needs: the limits, the weight of an id and the release of carried
     * ids. {@code limits} takes the limits' {@code HMGET} reply when the script has read it already (the acquire's
     * fast path).
     */
    private static final String HEAD = """
            -- A field that is present but not a whole number in range (someone with write rights on Redis wrote
            -- it) is an error reply naming it, never a limit: nothing is admitted or queued on a guess.
            local function checked(c)
              for i, field in ipairs({'maxConcurrency', 'maxQueue', 'maxWaitNanos'}) do
                local v = c[i]
                local n = #v <= 18 and not string.find(v, '%D') and tonumber(v)
                if not n or (i == 1 and n < 1) or (i < 3 and n > 2147483647) then
                  error({err = 'BULWARK_CONFIG ' .. config .. ' field ' .. field .. ' holds "' .. string.sub(v, 1, 40)
                      .. '", not a whole number from ' .. (i == 1 and 1 or 0) .. ' to '
                      .. (i < 3 and '2147483647' or '999999999999999999')})
                end
              end
              return c
            end

            -- The limits, initialized from ARGV[1] when a field is missing; unchecked only for CONFIGURE's first
            -- read, which may be about to repair a corrupt field.
            local function limits(c, unchecked)
              c = c or redis.call('HMGET', config, 'maxConcurrency', 'maxQueue', 'maxWaitNanos')
              if not c[1] or not c[2] or not c[3] then
                c = {string.match(ARGV[1], '^(%d+):(%d+):(%d+)$')}
                redis.call('HSET', config, 'maxConcurrency', c[1], 'maxQueue', c[2], 'maxWaitNanos', c[3])
              elseif not unchecked then
                checked(c)
              end
              return tonumber(c[1]), tonumber(c[2]), c[3]
            end

            -- An id ends in '#weight' when its weight is above 1 (ids contain no other '#').
            local function weightOf(id)
              local at = string.find(id, '#', 1, true)
              return at and tonumber(string.sub(id, at + 1)) or 1
            end

            local function addExtra(n)
              if n ~= 0 and redis.call('INCRBY', extra, n) <= 0 then
                redis.call('DEL', extra)
              end
            end

            -- Releases ARGV[from..]: per id 1 released a held permit, 2 removed a waiter, 0 unknown (also for an id
            -- named twice, after its first), appended to outcomes. The holders among them leave in one ZREM and give
            -- back their extra slots in one INCRBY. Grants nothing: the caller does (see RELEASE and ACQUIRE).
            local function releaseAll(from, outcomes)
              local last = #ARGV
              if last < from then
                return outcomes
              end
              -- Ids named twice count once; only a list of several ids can name one twice.
              local held, freed, seen = {}, 0, last > from and {} or nil
              for i = from, last do
                local id = ARGV[i]
                local outcome = 0
                if not (seen and seen[id]) then
                  if seen then
                    seen[id] = true
                  end
                  local expiry = redis.call('ZSCORE', holders, id)
                  if expiry then
                    held[#held + 1] = id
                    freed = freed + weightOf(id) - 1
                    -- A lease that ran out is unknown, exactly as if a purge had dropped it first.
                    if tonumber(expiry) > now then
                      outcome = 1
                    end
                  elseif redis.call('ZREM', queue, id) == 1 then
                    expiry = redis.call('ZSCORE', waiters, id)
                    redis.call('ZREM', waiters, id)
                    if expiry and tonumber(expiry) > now then
                      outcome = 2
                    end
                  end
                end
                outcomes[#outcomes + 1] = outcome
              end
              if #held == 1 then
                redis.call('ZREM', holders, held[1])
              else
                for i = 1, #held, 500 do
                  redis.call('ZREM', holders, unpack(held, i, math.min(i + 499, #held)))
                end
              end
              addExtra(-freed)
              return outcomes
            end
            """;

    /** What the full paths need besides {@code HEAD}: purge, queue and grant. Defined only where they run. */
    private static final String FULL = """
            local channel = string.sub(holders, 1, -8) .. 'granted'
            local PRIORITY_STEP = 281474976710656

            local function slotsUsed()
              return redis.call('ZCARD', holders) + (tonumber(redis.call('GET', extra)) or 0)
            end

            local function removeAll(key, members)
              for i = 1, #members, 500 do
                redis.call('ZREM', key, unpack(members, i, math.min(i + 499, #members)))
              end
            end

            local function purge()
              if redis.call('EXISTS', extra) == 1 then
                local expiredHolders = redis.call('ZRANGEBYSCORE', holders, '-inf', now)
                local freed = 0
                for _, id in ipairs(expiredHolders) do
                  freed = freed + weightOf(id) - 1
                end
                addExtra(-freed)
              end
              redis.call('ZREMRANGEBYSCORE', holders, '-inf', now)
              local expired = redis.call('ZRANGEBYSCORE', waiters, '-inf', now)
              if #expired > 0 then
                removeAll(queue, expired)
                redis.call('ZREMRANGEBYSCORE', waiters, '-inf', now)
              end
            end

            local function dequeue(id)
              redis.call('ZREM', queue, id)
              local expiry = redis.call('ZSCORE', waiters, id)
              redis.call('ZREM', waiters, id)
              return expiry
            end

            local function grant(maxConcurrency)
              local executing = slotsUsed()
              local notices = {}
              while true do
                local head = redis.call('ZRANGE', queue, 0, 0)
                if #head == 0 then
                  break
                end
                local id = head[1]
                local w = weightOf(id)
                if w > maxConcurrency then
                  dequeue(id)
                  notices[#notices + 1] = '!' .. maxConcurrency .. ':' .. id
                elseif executing + w <= maxConcurrency then
                  local expiry = dequeue(id)
                  if expiry then
                    redis.call('ZADD', holders, expiry, id)
                    addExtra(w - 1)
                    executing = executing + w
                    notices[#notices + 1] = id
                  end
                else
                  break
                end
              end
              if #notices > 0 then
                redis.call('PUBLISH', channel, table.concat(notices, ' '))
              end
              return executing
            end
            """;

    /** ARGV[2] id, ARGV[3] lease ms, ARGV[4] "1" when the caller may queue, ARGV[5] priority ordinal, ARGV[6..] ids
     *  to release first (as {@link #RELEASE} would, see "Cost"). Reply: status (0 full, 1 granted, 2 queued, 3 weight
     *  above the limit), executing slots, queued, maxConcurrency, maxQueue, maxWaitNanos, then per id to release
     *  its outcome as {@link #RELEASE} replies it. */
    public static final LuaScripts.Script ACQUIRE = new Script("acquire", CLOCK + LuaFastPaths.ACQUIRE + HEAD + """
            local maxConcurrency, maxQueue, maxWait = limits(c)
            local id = ARGV[2]
            local w = weightOf(id)
            -- The releases this instance sent along (see "Cost"), before anything is decided. No grant here: with
            -- waiters the full path below grants to the head before the caller.
            local reply = {0, 0, 0, maxConcurrency, maxQueue, maxWait}
            releaseAll(6, reply)
            -- The fast path once more where the one above was not tried (several carried releases, or limits to
            -- initialize): nobody waits, and the slots in use are at most every holder plus extra.
            if not fastTried and w <= maxConcurrency and redis.call('EXISTS', queue) == 0 then
              local used = redis.call('ZCARD', holders) + (tonumber(redis.call('GET', extra)) or 0)
              if used + w <= maxConcurrency then
                if redis.call('ZADD', holders, string.format('%d', now + ARGV[3]), id) == 1 then
                  addExtra(w - 1)
                  used = used + w
                end
                reply[1], reply[2] = 1, used
                return reply
              end
            end
            """ + FULL + """
            purge()
            local executing = grant(maxConcurrency)
            local queued = redis.call('ZCARD', queue)
            local priority = tonumber(ARGV[5])
            local status = 0
            if redis.call('ZSCORE', holders, id) then
              status = 1
            elseif redis.call('ZSCORE', queue, id) then
              status = 2
            elseif w > maxConcurrency then
              status = 3
            elseif queued == 0 and executing + w <= maxConcurrency then
              redis.call('ZADD', holders, now + tonumber(ARGV[3]), id)
              addExtra(w - 1)
              executing = executing + w
              status = 1
            elseif ARGV[4] == '1' and maxQueue > 0 and executing + w <= maxConcurrency
                and math.floor(tonumber(redis.call('ZRANGE', queue, 0, 0, 'WITHSCORES')[2]) / PRIORITY_STEP)
                    > priority then
              -- A newcomer of a higher priority than every waiter whose slots are free runs at once: it takes no
              -- queue place, so even a full queue evicts nobody for it (as in the in-process bulkhead).
              redis.call('ZADD', holders, now + tonumber(ARGV[3]), id)
              addExtra(w - 1)
              executing = executing + w
              status = 1
            elseif ARGV[4] == '1' and maxQueue > 0 then
              if queued == maxQueue then
                -- Only when evicting makes room: a queue above a lowered maxQueue refuses without evicting.
                local tail = redis.call('ZRANGE', queue, -1, -1, 'WITHSCORES')
                if math.floor(tonumber(tail[2]) / PRIORITY_STEP) > priority then
                  local expiry = dequeue(tail[1])
                  -- A tombstone until its waiter lease would have run out, for an owner that misses the notice.
                  if expiry then
                    redis.call('ZADD', waiters, expiry, '~' .. tail[1])
                  end
                  redis.call('PUBLISH', channel, '~' .. tail[1])
                  queued = queued - 1
                end
              end
              if queued < maxQueue then
                redis.call('ZADD', queue, priority * PRIORITY_STEP + redis.call('INCR', tickets), id)
                redis.call('ZADD', waiters, now + tonumber(ARGV[3]), id)
                queued = queued + 1
                status = 2
                if redis.call('ZRANGE', queue, 0, 0)[1] == id then
                  -- A newcomer of a higher priority than every waiter is the new head, and may fit.
                  executing = grant(maxConcurrency)
                  if redis.call('ZSCORE', holders, id) then
                    status = 1
                    queued = queued - 1
                  end
                end
              end
            end
            reply[1], reply[2], reply[3] = status, executing, queued
            return reply
            """);

    /** ARGV[2..] ids. Reply: per id, 1 released a held permit, 2 removed a waiter, 0 unknown. */
    public static final LuaScripts.Script RELEASE = new Script("release", CLOCK + LuaFastPaths.RELEASE + HEAD + """
            local outcomes = releaseAll(2, {})
            -- Only waiters can take what was freed: with none (queue and waiters hold the same calls, so no
            -- waiter lease to purge either; a tombstone can wait for the next purge) there is nothing to grant.
            if redis.call('EXISTS', queue) == 0 then
              return outcomes
            end
            """ + FULL + """
            local maxConcurrency = limits()
            purge()
            grant(maxConcurrency)
            return outcomes
            """);

    /** ARGV[2] lease ms, ARGV[3..] ids. Reply: maxConcurrency, maxQueue, maxWaitNanos, then per id 1 holder,
     *  2 waiter, 3 evicted waiter, 0 unknown. */
    public static final LuaScripts.Script RENEW = new Script("renew", CLOCK + HEAD + FULL + """
            local maxConcurrency, maxQueue, maxWait = limits()
            purge()
            grant(maxConcurrency)
            local expiry = now + tonumber(ARGV[2])
            local reply = {maxConcurrency, maxQueue, maxWait}
            for i = 3, #ARGV do
              local id = ARGV[i]
              if redis.call('ZSCORE', holders, id) then
                redis.call('ZADD', holders, expiry, id)
                reply[#reply + 1] = 1
              elseif redis.call('ZSCORE', waiters, id) then
                redis.call('ZADD', waiters, expiry, id)
                reply[#reply + 1] = 2
              elseif redis.call('ZREM', waiters, '~' .. id) == 1 then
                reply[#reply + 1] = 3
              else
                reply[#reply + 1] = 0
              end
            end
            return reply
            """);

    /** Reply: executing slots, queued, maxConcurrency, maxQueue, maxWaitNanos. */
    public static final LuaScripts.Script COUNTS = new Script("counts", CLOCK + HEAD + FULL + """
            local maxConcurrency, maxQueue, maxWait = limits()
            purge()
            local executing = grant(maxConcurrency)
            return {executing, redis.call('ZCARD', queue), maxConcurrency, maxQueue, maxWait}
            """);

    /** ARGV[2] field, ARGV[3] value, optional ARGV[4] the value the field must still hold (a compare-and-set: the
     *  adaptive limit's decisions), optional ARGV[5] the deciding instance's id and ARGV[6] its claim in ms (only
     *  this instance may decide until the claim, renewed by each of its applied decisions, runs out). Reply as
     *  {@link #COUNTS}, after the change, then 1 if the value was set or 0 if the field no longer held ARGV[4] or
     *  another instance's claim runs (nothing changed then). A lowered concurrency limit refuses every
     *  waiter whose weight exceeds it, wherever it stands in the queue. ARGV[3] and ARGV[4] both empty with a
     *  claim: the claim alone (no compare, no value written), which is how a decider gives its claim back
     *  whatever limit Redis holds by then. */
    public static final LuaScripts.Script CONFIGURE = new Script("configure", CLOCK + HEAD + FULL + """
            limits(nil, true)
            local applied = 1
            if ARGV[4] and ARGV[4] ~= '' and tonumber(redis.call('HGET', config, ARGV[2])) ~= tonumber(ARGV[4]) then
              applied = 0
            elseif ARGV[5] then
              -- One decider at a time: another instance's claim that has not run out wins over this decision.
              local claim = redis.call('HMGET', config, 'decider', 'deciderUntil')
              if claim[1] and claim[1] ~= ARGV[5] and (tonumber(claim[2]) or 0) > now then
                applied = 0
              else
                redis.call('HSET', config, 'decider', ARGV[5], 'deciderUntil', now + tonumber(ARGV[6]))
              end
            end
            if applied == 1 and ARGV[3] ~= '' then
              redis.call('HSET', config, ARGV[2], ARGV[3])
            end
            local maxConcurrency, maxQueue, maxWait = limits()
            purge()
            if ARGV[2] == 'maxConcurrency' then
              local refused = {}
              for _, id in ipairs(redis.call('ZRANGE', queue, 0, -1)) do
                if weightOf(id) > maxConcurrency then
                  dequeue(id)
                  refused[#refused + 1] = '!' .. maxConcurrency .. ':' .. id
                end
              end
              if #refused > 0 then
                redis.call('PUBLISH', channel, table.concat(refused, ' '))
              end
            end
            local executing = grant(maxConcurrency)
            return {executing, redis.call('ZCARD', queue), maxConcurrency, maxQueue, maxWait, applied}
            """);

    private LuaScripts() {
    }

    /**
     * One script: its source and the SHA-1 digest under which Redis caches it.
     *
     * @param name a short name for log and error messages
     * @param source the Lua source
     * @param sha the lowercase hex SHA-1 of the source, as {@code SCRIPT LOAD} would return it
     */
    public record Script(String name, String source, String sha) {

        /** A script named {@code name} whose digest is computed from {@code source}. */
        public Script(String name, String source) {
            this(name, source, sha1(source));
        }

        private static String sha1(String source) {
            try {
                return HexFormat.of().formatHex(
                        MessageDigest.getInstance("SHA-1").digest(source.getBytes(StandardCharsets.UTF_8)));
            } catch (NoSuchAlgorithmException e) {
                throw new IllegalStateException("Every Java platform provides SHA-1", e);
            }
        }
    }
}
