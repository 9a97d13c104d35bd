package dev.bulwark.redis.internal;

/**
 * The fast paths of {@link LuaScripts#ACQUIRE} and {@link LuaScripts#RELEASE}: the Lua that decides an
 * uncontended call, placed right after the scripts' keys and clock and before any helper is defined.
 *
 * <h2>Design</h2>
 * Each fast path either decides and returns, or has written nothing (its commands up to the decision only read),
 * so the general path after it decides exactly as if it had not run; {@code LuaScriptsFastPathTest} checks this
 * against the same scripts with the fast paths switched off. They keep every invariant of {@link LuaScripts}:
 * the acquire takes slots only when the queue is empty (invariant 3) and its count of every holder, expired or
 * not, plus {@code extra} leaves room (an over-count, never an over-admission: invariant 1); a carried or
 * released id that is no holder is no waiter either while the queue is empty (invariant 2), so it is unknown and
 * changes nothing; a holder leaves with exactly its extra slots, once (invariant 4).
 *
 * <h2>Why they are written this way</h2>
 * Measured with callgrind on {@code redis-server} 7.0 (instructions per {@code EVALSHA}, deterministic where
 * the shared machine's timings are not): an acquire carrying one release took ~114,000 instructions when it
 * went through the generic helpers (four closures built per run, {@code releaseAll}'s tables, the lease expiry
 * as a Lua number that Redis formats with {@code %.17g}), ~101,000 written like this with 8 commands, and
 * ~97,600 since the queue and {@code extra} are tested by one {@code EXISTS} of both keys (no {@code GET} while
 * no weighted call holds a permit: −2,500) and the reply is built with its last slot (no table growth: −1,100).
 * Building {@code KEYS} and {@code ARGV} costs ~1,000 per element, and a script of {@code return 1} with the same
 * arguments ~27,000 all told. So what remains is mostly the commands, which the data model (lease, FIFO queue,
 * cluster-wide limits) needs: counters of the slots and the queue kept in the config hash (read by the same
 * {@code HMGET}, replacing {@code EXISTS}, {@code GET} and {@code ZCARD}) measured ~95,000 for a prototype of
 * this fast path, only 2.3 % below it before any cost of keeping them equal to the sets, and were not adopted
 * (docs/cluster-cost.md, "Seventh round").
 */
final class LuaFastPaths {

    /**
     * The acquire's fast path (see {@link LuaScripts}, "Cost"): with the limits initialized, at most one release
     * carried, nobody queued, and the caller's slots free even counting every holder (expired or not) plus
     * {@code extra}, it releases the carried holder, takes the slots and returns. One {@code EXISTS} of the queue
     * and {@code extra} answers both "is anyone queued" and "is {@code extra} 0" when it counts 0 (the usual case:
     * {@code extra} is deleted when it falls to 0); when it counts 1, {@code GET extra} tells which key exists
     * (a value: the queue is empty; none: someone is queued), so a weighted holder costs the {@code GET} it always
     * did and nothing is decided on a guess. Otherwise it has written
     * nothing, and the general path decides as if it had not run. With the queue empty, a carried id that is no
     * holder is no waiter either (invariant 2): it is unknown (0) and nothing changes for it, as
     * {@code releaseAll} would decide. It leaves the general path {@code c}, the limits' {@code HMGET} reply, and
     * {@code fastTried}, whether it was tried (if not, the general path tries the same decision after releasing
     * every carried id). Limits that are not whole numbers in range (digits only: a corrupt config hash) are not
     * tried here, so that only the general path's {@code limits()} decides on them, with an error naming the field
     * (issue 38); the check is one concatenation and one character-class scan per acquire, not measured with
     * callgrind yet.
     */
    static final String ACQUIRE = """
            local c = redis.call('HMGET', config, 'maxConcurrency', 'maxQueue', 'maxWaitNanos')
            local fastLimit = tonumber(c[1])
            -- Only limits that are whole numbers in range (digits only: tonumber also reads '0x10', ' 5', '1.5');
            -- anything else goes to the general path, whose limits() answers with an error naming the field.
            local fastTried = fastLimit and c[2] and c[3] and #ARGV <= 6
                and not string.find(c[1] .. ':' .. c[2] .. ':' .. c[3], '[^%d:]') and fastLimit >= 1
                and fastLimit <= 2147483647 and #c[2] > 0 and #c[2] <= 10 and tonumber(c[2]) <= 2147483647
                and #c[3] > 0 and #c[3] <= 18
            -- One EXISTS for two keys: 0 means nobody queued and no weighted holder (extra absent is 0), 2 means
            -- someone queued; 1 means one of the two, and GET extra tells which (present: the queue is empty).
            local fastExtra = nil
            if fastTried then
              local present = redis.call('EXISTS', queue, extra)
              if present == 0 then
                fastExtra = 0
              elseif present == 1 then
                fastExtra = tonumber(redis.call('GET', extra))
              end
            end
            if fastExtra then
              local id, carried = ARGV[2], ARGV[6]
              local at = string.find(id, '#', 1, true)
              local w = at and tonumber(string.sub(id, at + 1)) or 1
              local expiry, carriedWeight = nil, 0
              if carried then
                expiry = redis.call('ZSCORE', holders, carried)
                if expiry then
                  at = string.find(carried, '#', 1, true)
                  carriedWeight = at and tonumber(string.sub(carried, at + 1)) or 1
                end
              end
              if w <= fastLimit then
                -- The slots in use once the carried holder has left: it and its extra slots (never below 0).
                local extraLeft = fastExtra - math.max(carriedWeight - 1, 0)
                local used = redis.call('ZCARD', holders) - (expiry and 1 or 0) + math.max(extraLeft, 0)
                if used + w <= fastLimit then
                  -- Built with its 7th slot (the carried id's outcome, 0 until known) so that it never grows.
                  local reply = {1, used, 0, fastLimit, tonumber(c[2]), c[3], carried and 0 or nil}
                  if carried then
                    if expiry then
                      redis.call('ZREM', holders, carried)
                      if carriedWeight > 1 and redis.call('INCRBY', extra, 1 - carriedWeight) <= 0 then
                        redis.call('DEL', extra)
                      end
                      -- A lease that ran out is unknown, exactly as if a purge had dropped it first.
                      if tonumber(expiry) > now then
                        reply[7] = 1
                      end
                    end
                  end
                  -- The score as an integer string: Redis would format a Lua number with %.17g, which costs more.
                  if redis.call('ZADD', holders, string.format('%d', now + ARGV[3]), id) == 1 then
                    if w > 1 and redis.call('INCRBY', extra, w - 1) <= 0 then
                      redis.call('DEL', extra)
                    end
                    reply[2] = used + w
                  end
                  return reply
                end
              end
            end
            """;

    /**
     * The release's fast path (see {@link LuaScripts}, "Cost"): one id and nobody queued. A holder leaves (with
     * its extra slots); an id that is no holder is no waiter either, since the queue is empty (invariant 2), so it
     * is unknown (0) and nothing changes. Otherwise it has only read, and the general path decides.
     */
    static final String RELEASE = """
            if #ARGV == 2 and redis.call('EXISTS', queue) == 0 then
              local id = ARGV[2]
              local expiry = redis.call('ZSCORE', holders, id)
              if not expiry then
                return {0}
              end
              redis.call('ZREM', holders, id)
              local at = string.find(id, '#', 1, true)
              local w = at and tonumber(string.sub(id, at + 1)) or 1
              if w > 1 and redis.call('INCRBY', extra, 1 - w) <= 0 then
                redis.call('DEL', extra)
              end
              -- A lease that ran out is unknown, exactly as if a purge had dropped it first.
              return {tonumber(expiry) > now and 1 or 0}
            end
            """;

    private LuaFastPaths() {
    }
}
