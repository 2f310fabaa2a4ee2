export {
  isConnectionError,
  type OutageLog,
  outageLog,
  producerConnection,
  redisAddress,
  workerConnection,
} from './connection.js';
export { type Deadline, withJobTimeout } from './job-timeout.js';
export {
  enqueueBatchPoll,
  enqueueBatchSubmit,
  enqueueCompress,
  enqueueNightlyRun,
  type MemfadeQueues,
  openQueues,
  type QueueOptions,
  STALLED_REASON,
} from './queues.js';
export { redisLock, vectorWriteLock } from './redis-lock.js';
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
  NIGHTLY_RUN_JOB,
  type NightlyRunPayload,
  nightlyRunPayload,
  QUEUES,
  type QueueKey,
  type Selection,
  selectionSchema,
  triggerSchema,
} from './registry.js';
