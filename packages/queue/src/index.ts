// Public API of @meshflow/queue: where tool calls run (in process or on BullMQ workers), the call
// journal, and batch runs of PRDs on Redis.
export type { CallJournal, JournalEntry, JournalStart } from "./CallJournal.js";
export { CALL_JOB, type CallJobData, CallJobDataSchema, callJobId } from "./callJob.js";
export {
  assertNoEviction,
  type ConnectRedisOptions,
  connectRedis,
  RECONNECT_CAP_MS,
  type RedisClient,
  type RedisRole,
  reconnectDelay,
  redactRedisUrl,
} from "./connectRedis.js";
export type { Executor } from "./Executor.js";
export { InlineExecutor } from "./InlineExecutor.js";
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
  type KeepJobs,
  type QueueName,
  type QueueSettings,
  queueSettings,
  RUNS_QUEUE,
} from "./QueueSettings.js";
export { QueueWorker, type QueueWorkerOptions, type WorkerEvent } from "./QueueWorker.js";
export { RedisCallJournal } from "./RedisCallJournal.js";
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
