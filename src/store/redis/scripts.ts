/**
 * The Lua scripts of the Redis store: every change that must be atomic (a fenced write, a
 * status change with its log entry and its bookkeeping, a claim, an abort, a sweep) is one
 * script, so two instances never see half of one. Every script takes the key prefix as ARGV[1]
 * and builds its keys from it (one Redis or a Sentinel primary; Redis Cluster is out of scope).
 *
 * Keys (P = prefix): `P run:<id>` hash (the run), `P log:<log>` stream (`f` = frame, `end` =
 * why the reading ends), `P trim:<log>` (the newest id trimmed away), `P leases` zset (runId →
 * leaseUntil), `P runs:paused` / `P runs:finished` zsets (runId → rank in the
 * order runs stopped: the eviction and TTL order), `P runs:stats` hash (`bytes` remembered), `P runs:seq` (the stop order), `P resp:<id>` strings with `P resp:order`,
 * `P resp:sizes`, `P resp:stats`, `P resp:seq`, `P chat:<key>` / `P thread:<key>` pointers with
 * `P pointers` (their set order) and `P pointers:seq`; channel `P abort`.
 */

import { LOG_ENTRY_OVERHEAD, RUN_OVERHEAD } from '../bytes.ts';
import { POINTER_EVICTION_SCAN } from '../run-store.ts';

/** What every run script shares: keys, exact trimming that remembers what it dropped, stopping, eviction. */
const PRELUDE = `
local P = ARGV[1]
local LEASES = P .. 'leases'
local PAUSED = P .. 'runs:paused'
local FINISHED = P .. 'runs:finished'
local STATS = P .. 'runs:stats'
local function rk(id) return P .. 'run:' .. id end
-- The eviction orders rank runs by when they stopped, ties kept in stop order: a sequence.
local function stopRank() return redis.call('INCR', P .. 'runs:seq') end
local function lk(log) return P .. 'log:' .. log end
local function tk(log) return P .. 'trim:' .. log end

local function idparts(id)
  local dash = string.find(id, '-', 1, true)
  return tonumber(string.sub(id, 1, dash - 1)), tonumber(string.sub(id, dash + 1))
end
local function idless(a, b)
  local ams, aseq = idparts(a)
  local bms, bseq = idparts(b)
  if ams == bms then return aseq < bseq end
  return ams < bms
end

-- Bytes as src/core/format-bytes.ts formatBytes writes them: '512 KiB', '1.5 MiB'.
local function fmtbytes(bytes)
  local size, unit = bytes / 1024, 'KiB'
  if size >= 1024 then size, unit = size / 1024, 'MiB' end
  local text = string.gsub(string.format('%.1f', size), '%.0$', '')
  return text .. ' ' .. unit
end

local function nowms()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end

-- What a log entry and a remembered run cost besides their strings (src/store/bytes.ts).
local ENTRY_OVERHEAD = ${LOG_ENTRY_OVERHEAD}
local RUN_OVERHEAD = ${RUN_OVERHEAD}
local function entryBytes(entry)
  local fields = entry[2]
  for i = 1, #fields, 2 do
    if fields[i] == 'f' then return ENTRY_OVERHEAD + #fields[i + 1] end
  end
  return ENTRY_OVERHEAD
end

-- Trims a log to maxEvents entries and maxAgeMs of age, exactly, and records the newest id it
-- dropped, so a reader resuming after an older id learns it missed entries. Returns the bytes
-- the dropped entries held.
local function trim(log, maxEvents, maxAgeMs)
  local key = lk(log)
  local dropped = nil
  local freed = 0
  local len = redis.call('XLEN', key)
  if len > maxEvents then
    local gone = redis.call('XRANGE', key, '-', '+', 'COUNT', len - maxEvents)
    for _, entry in ipairs(gone) do freed = freed + entryBytes(entry) end
    dropped = gone[#gone][1]
    redis.call('XTRIM', key, 'MAXLEN', '=', maxEvents)
  end
  local minid = string.format('%d', nowms() - maxAgeMs) .. '-0'
  -- The oldest entry first (cheap): only a log that has entries past the age reads them.
  local first = redis.call('XRANGE', key, '-', '+', 'COUNT', 1)
  if #first > 0 and idless(first[1][1], minid) then
    local old = redis.call('XRANGE', key, '-', '(' .. minid)
    for _, entry in ipairs(old) do freed = freed + entryBytes(entry) end
    local newestOld = old[#old][1]
    if dropped == nil or idless(dropped, newestOld) then dropped = newestOld end
    redis.call('XTRIM', key, 'MINID', '=', minid)
  end
  if dropped ~= nil then
    redis.call('SET', tk(log), dropped, 'KEEPTTL')
    local ttl = redis.call('PTTL', key)
    if ttl > 0 then redis.call('PEXPIRE', tk(log), ttl) end
  end
  return freed
end

-- Appends frames (and an end entry when given) to run id's log, trims it, and keeps the run's
-- logBytes (what its kept entries hold); returns the frames' ids.
local function add(id, log, frames, reason, maxEvents, maxAgeMs)
  local key = lk(log)
  local ids = {}
  local bytes = 0
  for i = 1, #frames do
    ids[i] = redis.call('XADD', key, '*', 'f', frames[i])
    bytes = bytes + ENTRY_OVERHEAD + #frames[i]
  end
  if reason ~= nil then
    redis.call('XADD', key, '*', 'end', reason)
    bytes = bytes + ENTRY_OVERHEAD
  end
  bytes = bytes - trim(log, maxEvents, maxAgeMs)
  redis.call('HINCRBY', rk(id), 'logBytes', bytes)
  return ids
end

-- A run's keys (its hash, its log and its earlier segments' logs) expire together.
local function expire(run, log, ms)
  redis.call('PEXPIRE', rk(run), ms)
  redis.call('PEXPIRE', lk(log), ms)
  redis.call('PEXPIRE', tk(log), ms)
  local older = redis.call('HGET', rk(run), 'olderLogs')
  if older then
    for _, old in ipairs(cjson.decode(older)) do
      redis.call('PEXPIRE', lk(old), ms)
      redis.call('PEXPIRE', tk(old), ms)
    end
  end
end

local function forget(id)
  local f = redis.call('HMGET', rk(id), 'bytes', 'log')
  if f[1] then redis.call('HINCRBY', STATS, 'bytes', -tonumber(f[1])) end
  redis.call('ZREM', PAUSED, id)
  redis.call('ZREM', FINISHED, id)
  redis.call('ZREM', LEASES, id)
  if f[2] then redis.call('DEL', lk(f[2]), tk(f[2])) end
  -- The logs of its earlier segments (a continuation written to a log of its own).
  local older = redis.call('HGET', rk(id), 'olderLogs')
  if older then
    for _, log in ipairs(cjson.decode(older)) do redis.call('DEL', lk(log), tk(log)) end
  end
  redis.call('DEL', rk(id))
end

-- A pointer (P .. 'chat:<key>' or 'thread:<key>') is JSON: {fields, expiresAt, ttlMs}.
local function readPointer(pid)
  local json = redis.call('GET', P .. pid)
  if not json then return nil end
  local ok, pointer = pcall(cjson.decode, json)
  if not ok or type(pointer) ~= 'table' or type(pointer.fields) ~= 'table' then return nil end
  return pointer
end

-- Run id stopped at now: the pointers that still name it (its 'pointers', a JSON list of ids)
-- last their ttlMs from now, never less than they had.
local function refreshPointers(id, now)
  local listed = redis.call('HGET', rk(id), 'pointers')
  if not listed then return end
  for _, pid in ipairs(cjson.decode(listed)) do
    local pointer = readPointer(pid)
    local ends, ttl = nil, nil
    if pointer and pointer.fields.run == id then
      ends, ttl = tonumber(pointer.expiresAt), tonumber(pointer.ttlMs)
    end
    if ends and ttl and ends > now and now + ttl > ends then
      pointer.expiresAt = now + ttl
      redis.call('SET', P .. pid, cjson.encode(pointer))
      redis.call('PEXPIREAT', P .. pid, string.format('%d', math.ceil(now + ttl)))
    end
  end
end

-- Oldest finished first, then oldest paused, while either bound is exceeded.
local function evict(maxRuns, maxBytes)
  while true do
    local count = redis.call('ZCARD', PAUSED) + redis.call('ZCARD', FINISHED)
    local bytes = tonumber(redis.call('HGET', STATS, 'bytes') or '0')
    if count <= maxRuns and bytes <= maxBytes then return end
    local victim = redis.call('ZRANGE', FINISHED, 0, 0)
    if #victim == 0 then victim = redis.call('ZRANGE', PAUSED, 0, 0) end
    if #victim == 0 then return end
    forget(victim[1])
  end
end

local function owned(id, me, token)
  local f = redis.call('HMGET', rk(id), 'status', 'owner', 'token', 'log')
  if f[1] == 'running' and f[2] == me and f[3] == token then return f[4] end
  return nil
end

-- Stopped bytes: what a remembered run holds (its prompt, state or outcome, its log's frames).
local function remember(id, held)
  local f = redis.call('HMGET', rk(id), 'prompt', 'logBytes', 'bytes')
  local bytes = #(f[1] or '') + #held + RUN_OVERHEAD + tonumber(f[2] or '0')
  redis.call('HINCRBY', STATS, 'bytes', bytes - tonumber(f[3] or '0'))
  redis.call('HSET', rk(id), 'bytes', bytes)
  return bytes
end

-- Marks a run finished (the caller writes the log's end entry).
local function finishRun(id, log, outcome, now, finishedTtl)
  -- A finished run keeps its outcome only: its prompt and state go.
  redis.call('HSET', rk(id), 'status', 'finished', 'outcome', outcome, 'stoppedAt', now, 'prompt', '')
  redis.call('HDEL', rk(id), 'state', 'owner', 'token', 'leaseUntil', 'abort')
  redis.call('ZREM', LEASES, id)
  redis.call('ZREM', PAUSED, id)
  redis.call('ZADD', FINISHED, stopRank(), id)
  remember(id, outcome)
  expire(id, log, finishedTtl + 60000)
  refreshPointers(id, now)
end
`;

/** ARGV: P, runId, log, wire, protocol, custom, prompt, tail, me, token, now, leaseMs, backstopMs → 1, or 0 (run id in use), 2 (log id in use). */
const CREATE_RUN = `
local id, log = ARGV[2], ARGV[3]
if redis.call('EXISTS', rk(id)) == 1 then return 0 end
if redis.call('EXISTS', lk(log)) == 1 then return 2 end
local now, leaseUntil = tonumber(ARGV[11]), tonumber(ARGV[11]) + tonumber(ARGV[12])
redis.call('HSET', rk(id), 'status', 'running', 'log', log, 'wire', ARGV[4], 'protocol', ARGV[5],
  'custom', ARGV[6], 'prompt', ARGV[7], 'tail', ARGV[8], 'owner', ARGV[9], 'token', ARGV[10],
  'leaseUntil', leaseUntil, 'seenAt', now, 'createdAt', now, 'logBytes', 0, 'bytes', 0)
redis.call('ZADD', LEASES, leaseUntil, id)
-- An empty stream, so a reader of a run that wrote nothing yet waits instead of hearing 'gone'.
redis.call('XGROUP', 'CREATE', lk(log), 'tw', '$', 'MKSTREAM')
redis.call('XGROUP', 'DESTROY', lk(log), 'tw')
redis.call('DEL', tk(log))
expire(id, log, tonumber(ARGV[13]))
return 1
`;

/** ARGV: P, runId, me, token, tail, maxEvents, maxAgeMs, frames… → {'ok', ids…} or {'lost'}. */
const APPEND = `
local id = ARGV[2]
local log = owned(id, ARGV[3], ARGV[4])
if log == nil then return {'lost'} end
local frames = {}
for i = 8, #ARGV do frames[#frames + 1] = ARGV[i] end
local ids = add(id, log, frames, nil, tonumber(ARGV[6]), tonumber(ARGV[7]))
redis.call('HSET', rk(id), 'tail', ARGV[5])
local reply = {'ok'}
for i = 1, #ids do reply[#reply + 1] = ids[i] end
return reply
`;

/**
 * ARGV: P, runId, me, token, now, leaseMs, backstopMs, unreadMs → {'ok', unread, abort?} or {'lost'}.
 * Leases are times by the renewing instance's clock and SWEEP compares them with the sweeping
 * instance's: the instances' clocks must agree to well within a lease (a fraction of `leaseMs`;
 * NTP does), or a sweep ends healthy runs as `instance_lost`. Not Redis TIME: the contract and
 * the server drive the time (`now`) so tests can, and memory and Redis must judge alike.
 */
const RENEW = `
local id = ARGV[2]
local log = owned(id, ARGV[3], ARGV[4])
if log == nil then return {'lost'} end
local now = tonumber(ARGV[5])
local leaseUntil = now + tonumber(ARGV[6])
redis.call('HSET', rk(id), 'leaseUntil', leaseUntil)
redis.call('ZADD', LEASES, leaseUntil, id)
expire(id, log, tonumber(ARGV[7]))
local f = redis.call('HMGET', rk(id), 'seenAt', 'abort')
local unread = '0'
if now - tonumber(f[1] or '0') > tonumber(ARGV[8]) then unread = '1' end
if f[2] then return {'ok', unread, f[2]} end
return {'ok', unread}
`;

/** The limits every stopping script takes, after its own arguments, in this order. */
export const LIMIT_ARGS = [
  'maxRememberedRuns',
  'maxRememberedBytes',
  'pausedRunTtlMs',
  'finishedRunTtlMs',
  'maxRunEvents',
  'maxLogAgeMs',
] as const;

/** Reads the limits from ARGV[from…from+5]. */
const LIMITS = (from: number) => `
local maxRuns, maxBytes = tonumber(ARGV[${from}]), tonumber(ARGV[${from + 1}])
local pausedTtl, finishedTtl = tonumber(ARGV[${from + 2}]), tonumber(ARGV[${from + 3}])
local maxEvents, maxAgeMs = tonumber(ARGV[${from + 4}]), tonumber(ARGV[${from + 5}])
`;

/**
 * ARGV: P, runId, me, token, now, state, dropped outcome (with `%s` for the run's bytes),
 * limits(8-13), frames… → {'paused'}, {'lost'}, or, writing nothing and leaving the run running
 * for the caller to finish: {'aborted'} (a stop was asked) or {'dropped', outcome} (too large).
 */
const PAUSE = `
${LIMITS(8)}
local id, now, state = ARGV[2], tonumber(ARGV[5]), ARGV[6]
local log = owned(id, ARGV[3], ARGV[4])
if log == nil then return {'lost'} end
if redis.call('HEXISTS', rk(id), 'abort') == 1 then return {'aborted'} end
local frames = {}
for i = 14, #ARGV do frames[#frames + 1] = ARGV[i] end
-- What it would hold paused: prompt, state, its log with these frames and the end entry.
local f = redis.call('HMGET', rk(id), 'prompt', 'logBytes')
local total = #(f[1] or '') + #state + RUN_OVERHEAD + tonumber(f[2] or '0') + ENTRY_OVERHEAD
for i = 1, #frames do total = total + ENTRY_OVERHEAD + #frames[i] end
if total > maxBytes then
  local outcome = string.gsub(ARGV[7], '%%s', function() return fmtbytes(total) end)
  return {'dropped', outcome}
end
add(id, log, frames, 'paused', maxEvents, maxAgeMs)
redis.call('HSET', rk(id), 'status', 'paused', 'state', state, 'stoppedAt', now)
redis.call('HDEL', rk(id), 'owner', 'token', 'leaseUntil', 'abort')
redis.call('ZREM', LEASES, id)
redis.call('ZADD', PAUSED, stopRank(), id)
remember(id, state)
expire(id, log, pausedTtl + finishedTtl + 60000)
refreshPointers(id, now)
evict(maxRuns, maxBytes)
return {'paused'}
`;

/** ARGV: P, runId, me, token, now, outcome, limits(7-12), frames… → 'finished'|'lost'. */
const FINISH = `
${LIMITS(7)}
local id, now = ARGV[2], tonumber(ARGV[5])
local log = owned(id, ARGV[3], ARGV[4])
if log == nil then return 'lost' end
local frames = {}
for i = 13, #ARGV do frames[#frames + 1] = ARGV[i] end
add(id, log, frames, 'finished', maxEvents, maxAgeMs)
finishRun(id, log, ARGV[6], now, finishedTtl)
evict(maxRuns, maxBytes)
return 'finished'
`;

/**
 * ARGV: P, runId, me, token, now, leaseMs, backstopMs, log ('' = the run's own) → {'ok', state},
 * {'no'}, or {'log in use'}: the continuation may write a log of its own, which becomes the run's.
 */
const CLAIM_PAUSED = `
local id = ARGV[2]
local f = redis.call('HMGET', rk(id), 'status', 'state', 'bytes', 'log')
if f[1] ~= 'paused' then return {'no'} end
local newLog = ARGV[8]
if newLog ~= '' and newLog ~= f[4] then
  if redis.call('EXISTS', lk(newLog)) == 1 then return {'log in use'} end
  redis.call('XGROUP', 'CREATE', lk(newLog), 'tw', '$', 'MKSTREAM')
  redis.call('XGROUP', 'DESTROY', lk(newLog), 'tw')
  redis.call('DEL', tk(newLog))
  local older = cjson.decode(redis.call('HGET', rk(id), 'olderLogs') or '[]')
  older[#older + 1] = f[4]
  redis.call('HSET', rk(id), 'log', newLog, 'olderLogs', cjson.encode(older))
  f[4] = newLog
end
local now = tonumber(ARGV[5])
local leaseUntil = now + tonumber(ARGV[6])
redis.call('HSET', rk(id), 'status', 'running', 'owner', ARGV[3], 'token', ARGV[4],
  'leaseUntil', leaseUntil, 'seenAt', now, 'bytes', 0)
redis.call('HDEL', rk(id), 'state', 'stoppedAt', 'outcome', 'abort')
redis.call('HINCRBY', STATS, 'bytes', -tonumber(f[3] or '0'))
redis.call('ZREM', PAUSED, id)
redis.call('ZADD', LEASES, leaseUntil, id)
expire(id, f[4], tonumber(ARGV[7]))
return {'ok', f[2] or ''}
`;

/** ARGV: P, runId, reason, now, limits(5-10) → 'aborting'|'aborted'|'finished'|'unknown'. */
const REQUEST_ABORT = `
${LIMITS(5)}
local id, reason, now = ARGV[2], ARGV[3], tonumber(ARGV[4])
local f = redis.call('HMGET', rk(id), 'status', 'owner', 'log')
if f[1] == 'running' then
  redis.call('HSET', rk(id), 'abort', reason)
  redis.call('PUBLISH', P .. 'abort', cjson.encode({runId = id, owner = f[2], reason = reason}))
  return 'aborting'
end
if f[1] == 'paused' then
  add(id, f[3], {}, 'finished', maxEvents, maxAgeMs)
  finishRun(id, f[3], 'aborted', now, finishedTtl)
  evict(maxRuns, maxBytes)
  return 'aborted'
end
if f[1] == 'finished' then return 'finished' end
return 'unknown'
`;

/** ARGV: P, now, lost outcome, waited outcome, limits(5-10). At most 50 of each kind a call. */
const SWEEP = `
${LIMITS(5)}
local now = tonumber(ARGV[2])
-- A lease that ends at 'now' still holds; one that ended before it is lost.
for _, id in ipairs(redis.call('ZRANGEBYSCORE', LEASES, '-inf', '(' .. ARGV[2], 'LIMIT', 0, 50)) do
  local f = redis.call('HMGET', rk(id), 'status', 'leaseUntil', 'tail', 'log')
  if f[1] == 'running' and tonumber(f[2]) < now then
    local ok, frames = pcall(cjson.decode, f[3] or '[]')
    if not ok or type(frames) ~= 'table' then frames = {} end
    add(id, f[4], frames, 'lost', maxEvents, maxAgeMs)
    finishRun(id, f[4], ARGV[3], now, finishedTtl)
  elseif f[1] ~= 'running' then
    redis.call('ZREM', LEASES, id)
  end
end
-- The stop orders are (nearly) time orders: the oldest are looked at, up to the first still in time.
for _, id in ipairs(redis.call('ZRANGE', PAUSED, 0, 49)) do
  local f = redis.call('HMGET', rk(id), 'log', 'stoppedAt')
  if not f[1] then
    redis.call('ZREM', PAUSED, id)
  elseif tonumber(f[2]) + pausedTtl <= now then
    add(id, f[1], {}, 'finished', maxEvents, maxAgeMs)
    finishRun(id, f[1], ARGV[4], now, finishedTtl)
  else
    break
  end
end
for _, id in ipairs(redis.call('ZRANGE', FINISHED, 0, 49)) do
  local stoppedAt = redis.call('HGET', rk(id), 'stoppedAt')
  if stoppedAt and tonumber(stoppedAt) + finishedTtl > now then break end
  forget(id)
end
evict(maxRuns, maxBytes)
return 'ok'
`;

/**
 * ARGV: P, id ('chat:<key>'), json, expiresAt (ms), maxCount, run id ('' = none), now → 'ok'. A
 * pointer (a chat's or a thread's current run) is JSON text ({fields, expiresAt, ttlMs}); the run
 * it names lists it (refreshPointers). At most maxCount are kept: past it, the oldest whose run is
 * neither running nor paused goes, among the oldest POINTER_EVICTION_SCAN (else the oldest).
 */
const SET_POINTER = `
local ORDER, SEQ = P .. 'pointers', P .. 'pointers:seq'
local id, run, now = ARGV[2], ARGV[6], tonumber(ARGV[7])
redis.call('SET', P .. id, ARGV[3])
-- At now + ttlMs by the store's clock; one already past is gone at once.
redis.call('PEXPIREAT', P .. id, ARGV[4])
redis.call('ZADD', ORDER, redis.call('INCR', SEQ), id)
-- Listed on its run (only one that exists: a run's hash is never made here).
if run ~= '' and redis.call('EXISTS', rk(run)) == 1 then
  local listed = cjson.decode(redis.call('HGET', rk(run), 'pointers') or '[]')
  local known = false
  for _, pid in ipairs(listed) do if pid == id then known = true end end
  if not known then
    listed[#listed + 1] = id
    redis.call('HSET', rk(run), 'pointers', cjson.encode(listed))
  end
end
-- Pointers that expired by themselves leave the order as it is looked at.
for _, old in ipairs(redis.call('ZRANGE', ORDER, 0, 19)) do
  if redis.call('EXISTS', P .. old) == 0 then redis.call('ZREM', ORDER, old) end
end
-- Whether pointer old may go before others: expired, or its run is not live (a waiting run's
-- pointer is how its client reaches it).
local function evictable(old)
  if old == id then return false end
  local pointer = readPointer(old)
  local ends = pointer and tonumber(pointer.expiresAt)
  if not ends or ends <= now then return true end
  local target = pointer.fields.run
  if type(target) ~= 'string' then return true end
  local status = redis.call('HGET', rk(target), 'status')
  return status ~= 'running' and status ~= 'paused'
end
while redis.call('ZCARD', ORDER) > tonumber(ARGV[5]) do
  local oldest = redis.call('ZRANGE', ORDER, 0, ${POINTER_EVICTION_SCAN - 1})
  local victim = oldest[1]
  for _, old in ipairs(oldest) do
    if evictable(old) then
      victim = old
      break
    end
  end
  redis.call('ZREM', ORDER, victim)
  redis.call('DEL', P .. victim)
end
return 'ok'
`;

/** ARGV: P, now, runIds… */
const NOTE_READERS = `
for i = 3, #ARGV do
  -- A note older than the last one does not move it back.
  local seen = redis.call('HGET', rk(ARGV[i]), 'seenAt')
  if seen and tonumber(seen) < tonumber(ARGV[2]) then redis.call('HSET', rk(ARGV[i]), 'seenAt', ARGV[2]) end
end
return 'ok'
`;

/** ARGV: P → {running, paused, finished, bytes}. */
const STATS_READ = `
return {redis.call('ZCARD', LEASES), redis.call('ZCARD', PAUSED), redis.call('ZCARD', FINISHED),
  tonumber(redis.call('HGET', STATS, 'bytes') or '0')}
`;

/**
 * ARGV: P, log, after ('' = from the start), count → {exists, trimmed id or '', newest id or '',
 * entries, newest end or ''}: one page of a log, with what a reader needs to tell a trimmed gap,
 * the newest entry, and whether the log has ended (its newest entry is an end).
 */
const READ_PAGE = `
local key = lk(ARGV[2])
if redis.call('EXISTS', key) == 0 then return {0, '', '', {}, ''} end
local trimmed = redis.call('GET', tk(ARGV[2])) or ''
local newest = redis.call('XREVRANGE', key, '+', '-', 'COUNT', 1)
local newestId, newestEnd = '', ''
if #newest > 0 then
  newestId = newest[1][1]
  local fields = newest[1][2]
  for i = 1, #fields, 2 do
    if fields[i] == 'end' then newestEnd = fields[i + 1] end
  end
end
local from = '-'
if ARGV[3] ~= '' then from = '(' .. ARGV[3] end
return {1, trimmed, newestId, redis.call('XRANGE', key, from, '+', 'COUNT', tonumber(ARGV[4])), newestEnd}
`;

/** ARGV: P, id, json, ttlMs, maxCount, maxBytes → 1 kept, 0 too large. */
const PUT_RESPONSE = `
local ORDER, SIZES, RSTATS, SEQ = P .. 'resp:order', P .. 'resp:sizes', P .. 'resp:stats', P .. 'resp:seq'
local function respKey(id) return P .. 'resp:' .. id end
local function drop(id)
  local size = redis.call('HGET', SIZES, id)
  if size then redis.call('HINCRBY', RSTATS, 'bytes', -tonumber(size)) end
  redis.call('HDEL', SIZES, id)
  redis.call('ZREM', ORDER, id)
  redis.call('DEL', respKey(id))
end
local id, json = ARGV[2], ARGV[3]
local maxCount, maxBytes = tonumber(ARGV[5]), tonumber(ARGV[6])
if #json > maxBytes then return 0 end
-- Expired responses are the oldest (one TTL for all): drop them from the books first.
while true do
  local oldest = redis.call('ZRANGE', ORDER, 0, 0)
  if #oldest == 0 or redis.call('EXISTS', respKey(oldest[1])) == 1 then break end
  drop(oldest[1])
end
drop(id)
redis.call('SET', respKey(id), json, 'PX', ARGV[4])
redis.call('ZADD', ORDER, redis.call('INCR', SEQ), id)
redis.call('HSET', SIZES, id, #json)
redis.call('HINCRBY', RSTATS, 'bytes', #json)
while redis.call('ZCARD', ORDER) > maxCount or tonumber(redis.call('HGET', RSTATS, 'bytes') or '0') > maxBytes do
  local oldest = redis.call('ZRANGE', ORDER, 0, 0)
  if #oldest == 0 then break end
  drop(oldest[1])
end
return 1
`;

const SCRIPT_SOURCES = {
  createRun: CREATE_RUN,
  append: APPEND,
  renew: RENEW,
  pause: PAUSE,
  finish: FINISH,
  claimPaused: CLAIM_PAUSED,
  requestAbort: REQUEST_ABORT,
  sweep: SWEEP,
  noteReaders: NOTE_READERS,
  setPointer: SET_POINTER,
  stats: STATS_READ,
  readPage: READ_PAGE,
  putResponse: PUT_RESPONSE,
} as const;

export type ScriptName = keyof typeof SCRIPT_SOURCES;

/** A script's full text: the shared prelude, then its body. */
export function scriptText(name: ScriptName): string {
  return PRELUDE + SCRIPT_SOURCES[name];
}
