import type { Cluster, Redis } from "ioredis";

/** The ioredis client meshflow's queue classes take: one server, or a Redis Cluster. */
export type RedisClient = Redis | Cluster;
