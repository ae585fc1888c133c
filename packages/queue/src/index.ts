// Public API of @meshflow/queue: where tool calls run (in process or on BullMQ workers), the call
// journal, and batch runs of PRDs on Redis.
// The executor and journal interfaces and the in-process executor live in @meshflow/mcp (so the runtime
// needs no queue stack); they are re-exported here for code that uses them with the queue.
export {
  type CallJournal,
  type Executor,
  InlineExecutor,
  type JournalEntry,
  type JournalStart,
} from "@meshflow/mcp";
export { CALL_JOB, type CallJobData, CallJobDataSchema, callJobId } from "./callJob.js";
export {
  assertNoEviction,
  type ConnectRedisOptions,
  connectRedis,
  isCluster,
  RECONNECT_CAP_MS,
  type RedisRole,
  reconnectDelay,
  redactRedisUrl,
} from "./connectRedis.js";
export type { CallJobTrace, JobTracing } from "./JobTracing.js";
export {
  DEFAULT_QUEUE_CALL_TIMEOUT_MS,
  DEFAULT_QUEUE_WAIT_MS,
  QueueExecutor,
  type QueueExecutorOptions,
} from "./QueueExecutor.js";
export {
  bullPrefix,
  CALLS_QUEUE,
  DEFAULT_REDIS_PREFIX,
  hashTagged,
  type KeepJobs,
  type QueueName,
  type QueueSettings,
  queueSettings,
  RUNS_QUEUE,
} from "./QueueSettings.js";
export { defaultWorkerName, QueueWorker, type QueueWorkerOptions, type WorkerEvent } from "./QueueWorker.js";
export { RedisApprovalLines } from "./RedisApprovalLines.js";
export { RedisCallJournal } from "./RedisCallJournal.js";
export { type RedisCacheOptions, RedisClassificationCache } from "./RedisClassificationCache.js";
export type { RedisClient } from "./RedisClient.js";
export {
  type QueuedRun,
  type QueuedRunCounts,
  type QueuedRunStatus,
  type QueuedStoryReport,
  QueuedStorySchema,
  RunBoard,
  type RunRegistration,
} from "./RunBoard.js";
export {
  type Enqueued,
  type EnqueueRequest,
  enqueueDigest,
  newQueuedRunId,
  type QueueCounts,
  RunQueue,
} from "./RunQueue.js";
export {
  type ClusterNode,
  isRedisClusterUrl,
  parseRedisClusterUrl,
  type RedisClusterUrl,
  redactRedisClusterUrl,
  redisClusterUrl,
} from "./redisClusterUrl.js";
export { redisCause, redisFailure } from "./redisFailure.js";
export {
  PRD_JOB,
  RUN_JOB,
  type RunJobContext,
  type RunJobData,
  RunJobDataSchema,
  type RunJobOutcome,
  type RunJobProcessor,
  STORY_JOB,
} from "./runJob.js";
export { type Dashboard, type DashboardOptions, serveDashboard } from "./serveDashboard.js";
