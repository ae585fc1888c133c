--[[
  Marks a queued run as finished: its record is updated, its content digest is released (the same
  PRD may be enqueued again) and its keys expire after the retention time; index entries older
  than that are dropped, so Redis memory stays flat however many runs go through.

  Input:
    KEYS[1] hash: content digest -> id of the queued or running run with that content
    KEYS[2] the run's record hash
    KEYS[3] the run's story reports hash
    KEYS[4] sorted set of run ids by creation time

    ARGV[1] content digest
    ARGV[2] run id
    ARGV[3] retention, seconds
    ARGV[4] now, epoch milliseconds
    ARGV[5...] record fields and values

  Output: 1
]]
local rcall = redis.call
if rcall("HGET", KEYS[1], ARGV[1]) == ARGV[2] then
  rcall("HDEL", KEYS[1], ARGV[1])
end
rcall("HSET", KEYS[2], unpack(ARGV, 5))
rcall("EXPIRE", KEYS[2], ARGV[3])
rcall("EXPIRE", KEYS[3], ARGV[3])
rcall("ZREMRANGEBYSCORE", KEYS[4], "-inf", tonumber(ARGV[4]) - tonumber(ARGV[3]) * 1000)
return 1
