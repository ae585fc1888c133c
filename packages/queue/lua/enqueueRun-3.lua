--[[
  Registers a new queued run unless the same PRD content is already queued or running.

  Input:
    KEYS[1] hash: content digest -> id of the queued or running run with that content
    KEYS[2] the new run's record hash
    KEYS[3] sorted set of run ids by creation time

    ARGV[1] content digest
    ARGV[2] the new run's id
    ARGV[3] creation time, epoch milliseconds
    ARGV[4] id of a run known to be gone (its digest entry may be replaced), or ""
    ARGV[5...] record fields and values

  Output: the id of the run that holds the digest: ARGV[2] when registered, else the existing one
]]
local rcall = redis.call
local existing = rcall("HGET", KEYS[1], ARGV[1])
if existing and existing ~= ARGV[4] then
  return existing
end
rcall("HSET", KEYS[1], ARGV[1], ARGV[2])
rcall("HSET", KEYS[2], unpack(ARGV, 5))
rcall("ZADD", KEYS[3], ARGV[3], ARGV[2])
return ARGV[2]
