package dev.bulwark.redis.internal.lease;

import dev.bulwark.redis.internal.LuaScripts;

/**
 * The server-side half of the leased mode: three Lua scripts on one hash per bulkhead,
 * {@code bulwark:{name}:leased}, and one sorted set beside it, {@code bulwark:{name}:leased:expiries} (the same
 * {@code {name}} hash tag, so both live in one Redis Cluster slot; {@link #RENEW} gets both in {@code KEYS}). The
 * hash holds {@code limit} (the fleet's limit) and, per instance {@code <id>} with a record, {@code b:<id>} (its
 * recorded block), {@code d:<id>} (its demand: executing + queued, as it last reported), {@code x:<id>} (of which
 * executing) and {@code e:<id>} (when its lease ends, in milliseconds of the server's {@code TIME}; no other clock is
 * used in Redis). The sorted set holds each such {@code <id>} scored by its {@code e:<id>}.
 *
 * <p>Beside the records the hash keeps running sums, updated by every renewal so that none reads the whole hash:
 * {@code live} (the records held, an expired one included until a renewal drops it) and {@code blocks} (the sum of
 * their {@code b:} fields); and the division's cache: {@code level-at} (when it was computed), {@code level},
 * {@code headroom}, {@code edge-demand} and {@code edge-id} (a {@link FairShares.Level}; no edge fields when it
 * has none).
 *
 * <p><b>Invariant</b> (outside a lost lease, the fail-open floor and Redis losing data, see {@link BlockRenewer}, and
 * until every instance renewed twice after {@code limit} was lowered): the recorded blocks sum to at most
 * {@code limit}. {@link #RENEW} keeps it: it only ever raises an instance's record from free
 * capacity ({@code limit} minus the others' records, expired ones not yet dropped included), and it records
 * {@code max(grant, holding)}, where {@code holding} is what the instance may still be running under (its local
 * limit or, after a shrink, its in-flight count): a smaller grant is handed to others only after the instance
 * reported, at a later renewal, that it applied it and its in-flight fell (the two-phase shrink).
 *
 * <p><b>Invariants of the running sums</b> (between scripts; each script runs atomically): {@code live} is the number
 * of {@code b:} fields and {@code blocks} their sum; the sorted set's members are exactly the ids with a {@code b:}
 * field, each scored by its {@code e:}. Every write of a record (a renewal), every removal (a leave, an expired
 * instance dropped) adjusts both sums by that record alone. A renewal that recomputes the division (below) counts
 * them anew from the hash, and rebuilds the sorted set if its size disagrees: a hash written without them (by an
 * earlier version of these scripts, or by hand) is brought under the invariants at its first such renewal, or at
 * once when {@code live} is missing. A member of the sorted set due by its score is dropped only if its {@code e:}
 * field agrees that its lease ended (otherwise it is scored anew), so that a record an earlier version renewed
 * without moving the set is not taken for expired.
 */
final class LeaseScripts {

    /**
     * How many expired instances a renewal that does not recompute the division drops at most (the script's
     * {@code ZRANGEBYSCORE ... LIMIT}; {@link LeaseTable#DROPS_PER_RENEWAL} in the twin). An expired record not yet
     * dropped only counts against free capacity, never for more.
     */
    static final int DROPS_PER_RENEWAL = LeaseTable.DROPS_PER_RENEWAL;

    private LeaseScripts() {
    }

    /**
     * Renews one instance's lease and returns its grant. {@code KEYS[1]}: the hash, {@code KEYS[2]}: the sorted set
     * by expiry. {@code ARGV}: instance id, demand, holding, lease in ms, the limit to store when the hash holds none,
     * {@code 1} to leave (delete the instance's record at once) or {@code 0}, how many of its calls execute, and the
     * renewal period in ms. Replies {@code {grant, limit, live instances, sum of records, contended}} (live
     * instances and the sum after this renewal, counting any expired record not yet dropped; {@code contended} 1 when
     * the division it served cut some demand to a level, 0 when it met every demand and split the rest as headroom;
     * a leave replies the first four only).
     *
     * <p>The division (the Java twin is {@link FairShares}): instances sorted by demand, then id, are served in turn
     * {@code min(demand, remaining / instances left)} (max-min fair, water-filling); what no demand takes is split
     * the same way as headroom, so that an instance whose load grows finds room before its next renewal. The grant
     * is then capped by the free capacity.
     *
     * <p><b>Cost.</b> The division is computed from the whole hash (all expired records dropped, the sums counted
     * anew, the instances sorted) by the first renewal at least one period after the last computation (or when none
     * is cached: a new hash, a changed limit, a clock that went back); it is cached as a level, a headroom and an
     * edge ({@link FairShares#level}). Every other renewal reads a few fields, drops at most
     * {@value #DROPS_PER_RENEWAL} expired instances found through the sorted set, and takes its target from the cache
     * ({@link FairShares#target}, with the demand it reports now): O(log instances). A leave never recomputes. So
     * the division a renewal serves is at most one period (plus the jitter of the renewal that recomputes) old;
     * the cap by free capacity keeps the invariant whatever it serves.
     */
    static final LuaScripts.Script RENEW = new LuaScripts.Script("leased-renew", """
            local key, expiries = KEYS[1], KEYS[2]
            local id = ARGV[1]
            local demand = tonumber(ARGV[2])
            local holding = tonumber(ARGV[3])
            local ttl = tonumber(ARGV[4])
            local leaving = ARGV[6] == '1'
            local period = tonumber(ARGV[8])
            local clock = redis.call('TIME')
            local now = tonumber(clock[1]) * 1000 + math.floor(tonumber(clock[2]) / 1000)
            redis.call('HSETNX', key, 'limit', ARGV[5])
            local state = redis.call('HMGET', key, 'limit', 'live', 'blocks', 'level-at', 'b:' .. id)
            local limit = tonumber(state[1])
            local at = state[4] and tonumber(state[4])
            local divide = not leaving and (not at or now - at >= period or now < at)
            local live, blocks
            local demands = {}
            if divide or not state[2] then
              local fields = redis.call('HGETALL', key)
              local records, expiry = {}, {}
              for i = 1, #fields, 2 do
                local kind = string.sub(fields[i], 1, 2)
                local who = string.sub(fields[i], 3)
                if kind == 'b:' then records[who] = tonumber(fields[i + 1])
                elseif kind == 'd:' then demands[who] = tonumber(fields[i + 1])
                elseif kind == 'e:' then expiry[who] = tonumber(fields[i + 1]) end
              end
              live, blocks = 0, 0
              for who, block in pairs(records) do
                if who ~= id and (not expiry[who] or expiry[who] <= now) then
                  redis.call('HDEL', key, 'b:' .. who, 'd:' .. who, 'e:' .. who, 'x:' .. who)
                  redis.call('ZREM', expiries, who)
                  records[who] = nil
                  demands[who] = nil
                else
                  live = live + 1
                  blocks = blocks + block
                end
              end
              if redis.call('ZCARD', expiries) ~= live then
                redis.call('DEL', expiries)
                for who in pairs(records) do redis.call('ZADD', expiries, expiry[who] or 0, who) end
              end
            else
              live, blocks = tonumber(state[2]), tonumber(state[3])
              local due = redis.call('ZRANGEBYSCORE', expiries, '-inf', now, 'LIMIT', 0, %d)
              for _, who in ipairs(due) do
                if who ~= id then
                  local record = redis.call('HMGET', key, 'b:' .. who, 'e:' .. who)
                  if record[1] and record[2] and tonumber(record[2]) > now then
                    redis.call('ZADD', expiries, record[2], who)
                  else
                    if record[1] then
                      live = live - 1
                      blocks = blocks - tonumber(record[1])
                      redis.call('HDEL', key, 'b:' .. who, 'd:' .. who, 'e:' .. who, 'x:' .. who)
                    end
                    redis.call('ZREM', expiries, who)
                  end
                end
              end
            end
            if state[5] then
              live = live - 1
              blocks = blocks - tonumber(state[5])
            end
            local others = blocks
            if leaving then
              redis.call('HDEL', key, 'b:' .. id, 'd:' .. id, 'e:' .. id, 'x:' .. id)
              redis.call('ZREM', expiries, id)
              redis.call('HSET', key, 'live', live, 'blocks', blocks)
              return {0, limit, 0, others}
            end
            local level, headroom, edgeDemand, edgeId
            if divide then
              demands[id] = demand
              local ids = {}
              for who in pairs(demands) do ids[#ids + 1] = who end
              table.sort(ids, function(a, b)
                if demands[a] ~= demands[b] then return demands[a] < demands[b] end
                return a < b
              end)
              local remaining = limit
              local shares = {}
              for i, who in ipairs(ids) do
                local s = math.min(demands[who], math.floor(remaining / (#ids - i + 1)))
                shares[i] = s
                remaining = remaining - s
              end
              local edge
              for i, who in ipairs(ids) do
                if shares[i] < demands[who] then
                  level, headroom, edge = shares[i], 0, i
                  while edge <= #ids and shares[edge] == level do edge = edge + 1 end
                  break
                end
              end
              if not level then
                level, edge = -1, 1
                for i = 1, #ids do
                  local h = math.floor(remaining / (#ids - i + 1))
                  shares[i] = h
                  remaining = remaining - h
                end
                headroom = shares[1]
                while edge <= #ids and shares[edge] == headroom do edge = edge + 1 end
              end
              redis.call('HSET', key, 'level-at', now, 'level', level, 'headroom', headroom)
              if edge <= #ids then
                edgeDemand, edgeId = demands[ids[edge]], ids[edge]
                redis.call('HSET', key, 'edge-demand', edgeDemand, 'edge-id', edgeId)
              else
                redis.call('HDEL', key, 'edge-demand', 'edge-id')
              end
            else
              local cached = redis.call('HMGET', key, 'level', 'headroom', 'edge-demand', 'edge-id')
              level, headroom = tonumber(cached[1]), tonumber(cached[2])
              edgeDemand, edgeId = cached[3] and tonumber(cached[3]), cached[4]
            end
            local extra = 0
            if edgeId and (demand > edgeDemand or (demand == edgeDemand and id >= edgeId)) then extra = 1 end
            local target
            if level < 0 then target = demand + headroom + extra else target = math.min(demand, level + extra) end
            local grant = math.max(0, math.min(target, limit - others))
            local record = math.max(grant, holding)
            redis.call('HSET', key, 'b:' .. id, record, 'd:' .. id, demand, 'e:' .. id, now + ttl, 'x:' .. id, ARGV[7],
              'live', live + 1, 'blocks', blocks + record)
            redis.call('ZADD', expiries, now + ttl, id)
            return {grant, limit, live + 1, blocks + record, level >= 0 and 1 or 0}
            """.formatted(DROPS_PER_RENEWAL));

    /**
     * Reads the fleet: {@code {limit, live instances' executing calls, their queued calls, live instances}}, as each
     * last reported, skipping records whose lease ended (the next renewal drops them). {@code KEYS[1]}: the hash.
     */
    static final LuaScripts.Script COUNTS = new LuaScripts.Script("leased-counts", """
            local clock = redis.call('TIME')
            local now = tonumber(clock[1]) * 1000 + math.floor(tonumber(clock[2]) / 1000)
            local fields = redis.call('HGETALL', KEYS[1])
            local limit, demands, executing, expiries = 0, {}, {}, {}
            for i = 1, #fields, 2 do
              local kind = string.sub(fields[i], 1, 2)
              local who = string.sub(fields[i], 3)
              if fields[i] == 'limit' then limit = tonumber(fields[i + 1])
              elseif kind == 'd:' then demands[who] = tonumber(fields[i + 1])
              elseif kind == 'x:' then executing[who] = tonumber(fields[i + 1])
              elseif kind == 'e:' then expiries[who] = tonumber(fields[i + 1]) end
            end
            local running, queued, live = 0, 0, 0
            for who, d in pairs(demands) do
              if expiries[who] ~= nil and expiries[who] > now then
                local x = executing[who] or 0
                running = running + x
                queued = queued + d - x
                live = live + 1
              end
            end
            return {limit, running, queued, live}
            """);

    /**
     * Sets the fleet's limit and drops the cached division, so that the next renewal divides the new limit:
     * {@code KEYS[1]}: the hash, {@code ARGV[1]}: the limit. Replies {@code {limit}}.
     */
    static final LuaScripts.Script SET_LIMIT = new LuaScripts.Script("leased-set-limit", """
            redis.call('HSET', KEYS[1], 'limit', ARGV[1])
            redis.call('HDEL', KEYS[1], 'level-at')
            return {tonumber(ARGV[1])}
            """);
}
