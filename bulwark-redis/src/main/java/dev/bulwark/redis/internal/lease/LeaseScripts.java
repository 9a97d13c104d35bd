package dev.bulwark.redis.internal.lease;

import dev.bulwark.redis.internal.LuaScripts;

/**
 * The server-side half of the leased mode: three Lua scripts on one hash per bulkhead,
 * {@code bulwark:{name}:leased}. The hash holds {@code limit} (the fleet's limit) and, per live instance
 * {@code <id>}, {@code b:<id>} (its recorded block), {@code d:<id>} (its demand: executing + queued, as it last
 * reported), {@code x:<id>} (of which executing) and {@code e:<id>} (when its lease ends, in milliseconds of the
 * server's {@code TIME}; no other clock is used in Redis).
 *
 * <p><b>Invariant</b> (outside a lost lease, the fail-open floor and Redis losing data, see {@link BlockRenewer}, and
 * until every instance renewed twice after {@code limit} was lowered): the recorded blocks sum to at most
 * {@code limit}. {@link #RENEW} keeps it: it only ever raises an instance's record from free
 * capacity ({@code limit} minus the others' records, after dropping the expired), and it records
 * {@code max(grant, holding)}, where {@code holding} is what the instance may still be running under (its local
 * limit or, after a shrink, its in-flight count): a smaller grant is handed to others only after the instance
 * reported, at a later renewal, that it applied it and its in-flight fell (the two-phase shrink).
 */
final class LeaseScripts {

    private LeaseScripts() {
    }

    /**
     * Renews one instance's lease and returns its grant. {@code KEYS[1]}: the hash. {@code ARGV}: instance id,
     * demand, holding, lease in ms, the limit to store when the hash holds none, {@code 1} to leave (delete the
     * instance's record at once) or {@code 0}, and how many of its calls execute. Replies
     * {@code {grant, limit, live instances, sum of records}}.
     *
     * <p>The division (the Java twin is {@link FairShares}): instances sorted by demand, then id, are served in turn
     * {@code min(demand, remaining / instances left)} (max-min fair, water-filling); what no demand takes is split
     * the same way as headroom, so that an instance whose load grows finds room before its next renewal. The grant
     * is then capped by the free capacity.
     */
    static final LuaScripts.Script RENEW = new LuaScripts.Script("leased-renew", """
            local key = KEYS[1]
            local id = ARGV[1]
            local demand = tonumber(ARGV[2])
            local holding = tonumber(ARGV[3])
            local ttl = tonumber(ARGV[4])
            local clock = redis.call('TIME')
            local now = tonumber(clock[1]) * 1000 + math.floor(tonumber(clock[2]) / 1000)
            redis.call('HSETNX', key, 'limit', ARGV[5])
            local limit = tonumber(redis.call('HGET', key, 'limit'))
            local fields = redis.call('HGETALL', key)
            local blocks, demands, expiries = {}, {}, {}
            for i = 1, #fields, 2 do
              local kind = string.sub(fields[i], 1, 2)
              local who = string.sub(fields[i], 3)
              if kind == 'b:' then blocks[who] = tonumber(fields[i + 1])
              elseif kind == 'd:' then demands[who] = tonumber(fields[i + 1])
              elseif kind == 'e:' then expiries[who] = tonumber(fields[i + 1]) end
            end
            for who, expiry in pairs(expiries) do
              if expiry <= now and who ~= id then
                redis.call('HDEL', key, 'b:' .. who, 'd:' .. who, 'e:' .. who, 'x:' .. who)
                blocks[who] = nil
                demands[who] = nil
              end
            end
            blocks[id] = nil
            if ARGV[6] == '1' then
              redis.call('HDEL', key, 'b:' .. id, 'd:' .. id, 'e:' .. id, 'x:' .. id)
              demands[id] = nil
            else
              demands[id] = demand
            end
            local others = 0
            for _, block in pairs(blocks) do others = others + block end
            if ARGV[6] == '1' then
              return {0, limit, 0, others}
            end
            local ids = {}
            for who in pairs(demands) do ids[#ids + 1] = who end
            table.sort(ids, function(a, b)
              if demands[a] ~= demands[b] then return demands[a] < demands[b] end
              return a < b
            end)
            local remaining = limit
            local share = {}
            for i, who in ipairs(ids) do
              local s = math.min(demands[who], math.floor(remaining / (#ids - i + 1)))
              share[who] = s
              remaining = remaining - s
            end
            for i, who in ipairs(ids) do
              local h = math.floor(remaining / (#ids - i + 1))
              share[who] = share[who] + h
              remaining = remaining - h
            end
            local grant = math.max(0, math.min(share[id], limit - others))
            local record = math.max(grant, holding)
            redis.call('HSET', key, 'b:' .. id, record, 'd:' .. id, demand, 'e:' .. id, now + ttl, 'x:' .. id, ARGV[7])
            return {grant, limit, #ids, others + record}
            """);

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

    /** Sets the fleet's limit: {@code KEYS[1]}: the hash, {@code ARGV[1]}: the limit. Replies {@code {limit}}. */
    static final LuaScripts.Script SET_LIMIT = new LuaScripts.Script("leased-set-limit", """
            redis.call('HSET', KEYS[1], 'limit', ARGV[1])
            return {tonumber(ARGV[1])}
            """);
}
