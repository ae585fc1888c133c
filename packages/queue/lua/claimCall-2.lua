--[[
  Claims a tool call for execution. The check that the worker still holds the job's lock and the
  "started" mark are one atomic step: a worker whose lock expired (stalled, then the job was given
  to another worker) can never start the call's side effect.

  Input:
    KEYS[1] the BullMQ job's lock key (its value is the token of the worker holding the job)
    KEYS[2] the run's journal hash (field: idempotency key, value: entry JSON)

    ARGV[1] the worker's token for this job
    ARGV[2] the idempotency key
    ARGV[3] the "started" entry JSON to store when the call may run
    ARGV[4] "1" when the tool is idempotent or read-only (it may run again after an unknown outcome)
    ARGV[5] qualified tool name
    ARGV[6] arguments digest
    ARGV[7] journal time to live, seconds

  Output: { verdict, entry JSON or "" }
    "lost"      the lock is not held with this token: nothing written, the call must not run
    "finished"  the key already has a result (returned): the call is not run again
    "mismatch"  the key was journaled for another tool or other arguments
    "unknown"   an earlier attempt started the call and never recorded its result (tool not safe)
    "run"       recorded as started by this token: run the call
]]
local rcall = redis.call
if rcall("GET", KEYS[1]) ~= ARGV[1] then
  return { "lost", "" }
end
local current = rcall("HGET", KEYS[2], ARGV[2])
if current then
  local entry = cjson.decode(current)
  if entry["tool"] ~= ARGV[5] or entry["argsDigest"] ~= ARGV[6] then
    return { "mismatch", current }
  end
  if entry["state"] == "finished" then
    return { "finished", current }
  end
  if ARGV[4] ~= "1" then
    return { "unknown", current }
  end
end
rcall("HSET", KEYS[2], ARGV[2], ARGV[3])
rcall("EXPIRE", KEYS[2], ARGV[7])
return { "run", "" }
