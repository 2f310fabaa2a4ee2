export {
  BudgetReachedError,
  budgetKeeper,
  describeBudget,
  estimateCall,
  hasBudget,
  type NightBudget,
} from './budget.js';
export {
  isConnectionError,
  type OutageLog,
  outageLog,
  producerConnection,
  redisAddress,
  workerConnection,
} from './connection.js';
export { type Deadline, withJobTimeout } from './job-timeout.js';
export { FleetMetrics, metricsKey } from './metrics.js';
export { createMetricsExposition, type MetricsExposition } from './metrics-exposition.js';
export {
  BATCH_RECEIPT_PLACES,
  type BatchReceiptEntry,
  eraseFromBatches,
} from './processors/batch-erasure.js';
export { processBatchPoll } from './processors/batch-poll.js';
export { BatchRecovery } from './processors/batch-recovery.js';
export {
  type BatchDeps,
  type BatchSettings,
  requestId,
  requestKey,
} from './processors/batch-requests.js';
export { processBatchSubmit } from './processors/batch-submit.js';
export { type CompressDeps, processCompress } from './processors/compress.js';
export {
  type NightlyRunDeps,
  type NightlyRunSummary,
  type ProducerBatchMode,
  processNightlyRun,
} from './processors/nightly-run.js';
export {
  enqueueBatchPoll,
  enqueueBatchSubmit,
  enqueueCompress,
  enqueueNightlyRun,
  type MemfadeQueues,
  openQueues,
  type QueueOptions,
} from './queues.js';
export { redisLock, vectorWriteLock } from './redis-lock.js';
export {
  BATCH_POLL_JOB,
  BATCH_SUBMIT_JOB,
  type BatchPayload,
  batchPollJobId,
  batchSubmitJobId,
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
export { describeRunBatches } from './run-batches.js';
export { enqueueRun, type RunControl, type RunRequest, RunWaitTimeout, waitForRun } from './run-now.js';
export { type JobEnd, RunTracker, type RunTrackerDeps, settle } from './run-tracker.js';
export { nightlyRunId, type Scheduler, startScheduler } from './scheduler.js';
export { type Candidate, selectDue } from './selection.js';
export { type MemfadeWorkers, startWorkers, type WorkerSetup } from './workers.js';
