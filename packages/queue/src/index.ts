export {
  isConnectionError,
  type OutageLog,
  outageLog,
  producerConnection,
  redisAddress,
  workerConnection,
} from './connection.js';
export {
  type AttemptEnd,
  attemptEnd,
  classifyFailure,
  type Failure,
  type FailureKind,
  failsForGood,
  InvalidPayloadError,
  MONGO_AWAY_FAILURE,
  notTheMemorysFailure,
} from './failures.js';
export { type Deadline, withJobTimeout } from './job-timeout.js';
export {
  type JobHandlers,
  jobProcessor,
  type ProcessorControls,
  type RejectedPayload,
} from './jobs.js';
export {
  enqueueBatchPoll,
  enqueueBatchSubmit,
  enqueueCompress,
  enqueueNightlyRun,
  type MemfadeQueues,
  openQueues,
  type QueueOptions,
} from './queues.js';
export { type HeldLock, LockLostError, redisLock, vectorWriteLock } from './redis-lock.js';
export {
  BATCH_POLL_JOB,
  BATCH_SUBMIT_JOB,
  type BatchPayload,
  type BatchPollPayload,
  type BatchSubmitPayload,
  batchPollJobId,
  batchPollPayload,
  batchSubmitJobId,
  batchSubmitPayload,
  type CompressPayload,
  compressJobId,
  compressJobName,
  compressPayload,
  type JobName,
  type JobPayload,
  NIGHTLY_RUN_JOB,
  type NightlyRunPayload,
  nightlyRunPayload,
  QUEUES,
  type QueueKey,
  type QueuePayload,
  type Selection,
  selectionSchema,
  triggerSchema,
} from './registry.js';
