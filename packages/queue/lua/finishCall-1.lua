--[[
  Records a result the caller got without a worker recording it (a call that was never started,
  or an unknown outcome): written only when the key has no result yet, so a worker's result always wins.

  Input:
    KEYS[1] the run's journal hash

    ARGV[1] the idempotency key
    ARGV[2] the "finished" entry JSON
    ARGV[3] journal time to live, seconds

  Output: 1 when written, 0 when the key already had a result
]]
local rcall = redis.call
local current = rcall("HGET", KEYS[1], ARGV[1])
if current and cjson.decode(current)["state"] == "finished" then
  return 0
end
rcall("HSET", KEYS[1], ARGV[1], ARGV[2])
rcall("EXPIRE", KEYS[1], ARGV[3])
return 1
