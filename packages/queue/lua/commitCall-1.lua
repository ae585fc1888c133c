--[[
  Records a call's result in the journal, fenced by the token that claimed it: only the attempt
  whose "started" mark is still in place may write, so a late attempt that lost its job to another
  worker cannot overwrite what that worker decided. A result already recorded stays.

  Input:
    KEYS[1] the run's journal hash

    ARGV[1] the token that claimed the call
    ARGV[2] the idempotency key
    ARGV[3] the "finished" entry JSON
    ARGV[4] journal time to live, seconds

  Output: { verdict, entry JSON or "" }
    "committed"  written
    "finished"   another attempt already recorded a result (returned); nothing written
    "lost"       another attempt holds the call now (its entry returned); nothing written
]]
local rcall = redis.call
local current = rcall("HGET", KEYS[1], ARGV[2])
if current then
  local entry = cjson.decode(current)
  if entry["state"] == "finished" then
    return { "finished", current }
  end
  if entry["token"] ~= ARGV[1] then
    return { "lost", current }
  end
end
rcall("HSET", KEYS[1], ARGV[2], ARGV[3])
rcall("EXPIRE", KEYS[1], ARGV[4])
return { "committed", "" }
