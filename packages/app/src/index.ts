export {
  BATCH_RECEIPT_PLACES,
  type BatchReceiptEntry,
  eraseFromBatches,
} from './batch/batch-erasure.js';
export { processBatchPoll } from './batch/batch-poll.js';
export { BatchRecovery } from './batch/batch-recovery.js';
export {
  type BatchDeps,
  type BatchSettings,
  requestId,
  requestKey,
} from './batch/batch-requests.js';
export { processBatchSubmit } from './batch/batch-submit.js';
export { describeRunBatches } from './batch/run-batches.js';
export { type CompressDeps, processCompress } from './compress/compress.js';
export { releaseCompressJobs } from './compress/release-jobs.js';
export { rollbackMemory } from './compress/rollback.js';
export {
  type NightlyRunDeps,
  type NightlyRunSummary,
  type ProducerBatchMode,
  processNightlyRun,
} from './nightly/nightly-run.js';
export {
  enqueueRun,
  type RunControl,
  type RunRequest,
  RunWaitTimeout,
  waitForRun,
} from './nightly/run-now.js';
export { nightlyRunId, type Scheduler, startScheduler } from './nightly/scheduler.js';
export { type Candidate, selectDue } from './nightly/selection.js';
export {
  BudgetReachedError,
  budgetKeeper,
  describeBudget,
  hasBudget,
  type NightBudget,
  reservationOf,
} from './runs/budget.js';
export { FleetMetrics, metricsKey } from './runs/metrics.js';
export { createMetricsExposition, type MetricsExposition } from './runs/metrics-exposition.js';
export { type JobEnd, RunTracker, type RunTrackerDeps, settle } from './runs/run-tracker.js';
export { configFromEnv, defaultConfig, type Env, envSchema, type MemfadeConfig } from './setup/config.js';
export { type Inspection, openForInspection } from './setup/inspection.js';
export { loadMapping } from './setup/mapping-file.js';
export { batchDeps, startSchedulerRole, startWorkerRole } from './setup/roles.js';
export {
  createServices,
  type Operations,
  openOperations,
  type ServiceOptions,
  type Services,
} from './setup/services.js';
export { type MemfadeWorkers, startWorkers, type WorkerSetup } from './setup/workers.js';
export * from './store.js';
export { ATTR, SPAN } from './telemetry/spans.js';
export { queueTelemetry, startTracing, type Tracing, tracingOn } from './telemetry/tracing.js';
export {
  BATCH_PLACES,
  type ErasureDeps,
  type JobRelease,
  type ReceiptEntry,
  SWEEP_PAGE,
  type SweepCounts,
  sweepAll,
  sweepPage,
  sweepSidePage,
} from './vectors/erasure.js';
export { type ForgetReport, forget } from './vectors/forget.js';
export { recordText } from './vectors/record-text.js';
export { type DrainReport, VectorSyncer } from './vectors/vector-sync.js';
