/**
 * The application's API: what the apps (worker, CLI, dashboard) and the tools above them call. The
 * apps reach MongoDB, the queues and the vector stores only through these (docs/design.md §2); the
 * few names of lower packages below are the records and job names the apps show, not storage.
 */
export type { RunError, RunRecord, UserCost } from '@memfade/db';
export { RollbackRefusedError } from '@memfade/db';
export { compressJobId, QUEUES, type Selection } from '@memfade/queue';
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
export { runDoctor } from './doctor/diagnose.js';
export type { DoctorReport } from './doctor/report.js';
export type { ErasureDeps, ForgetDeps, JobRelease } from './erasure/deps.js';
export { Erasure } from './erasure/erasure.js';
export { type ForgetReport, forget } from './erasure/forget.js';
export { BATCH_PLACES, type ReceiptEntry } from './erasure/receipt.js';
export { recordText } from './erasure/record-text.js';
export { SWEEP_PAGE, type SweepCounts, sweepAll, sweepPage, sweepSidePage } from './erasure/sweep.js';
export {
  type NightlyRunDeps,
  type NightlyRunSummary,
  type ProducerBatchMode,
  processNightlyRun,
} from './nightly/nightly-run.js';
export {
  enqueueRun,
  type RunControl,
  RunNeverStarted,
  type RunRequest,
  RunWaitTimeout,
  waitForRun,
} from './nightly/run-now.js';
export { nightlyRunId, type Scheduler, startScheduler } from './nightly/scheduler.js';
export { type Candidate, selectDue } from './nightly/selection.js';
export {
  flagForReindex,
  importMemories,
  inspectMemory,
  knownUsers,
  stageCounts,
} from './operator/memories.js';
export {
  budgetKeeper,
  describeBudget,
  hasBudget,
  type NightBudget,
  reservationOf,
} from './runs/budget.js';
export { FleetMetrics, metricsKey } from './runs/metrics.js';
export { createMetricsExposition, type MetricsExposition } from './runs/metrics-exposition.js';
export type { MemoryEnd } from './runs/outcome.js';
export { RunTracker, type RunTrackerDeps, settle } from './runs/run-tracker.js';
export { configFromEnv, defaultConfig, type MemfadeConfig } from './setup/config.js';
export { type Env, envSchema } from './setup/env-schema.js';
export { loadMapping } from './setup/mapping-file.js';
export { batchDeps, startSchedulerRole, startWorkerRole } from './setup/roles.js';
export {
  createServices,
  type ErasureServices,
  type Operations,
  openErasure,
  openOperations,
  type ServiceOptions,
  type Services,
} from './setup/services.js';
export { type MemfadeWorkers, startWorkers, type WorkerSetup } from './setup/workers.js';
export { ATTR, SPAN } from './telemetry/spans.js';
export { queueTelemetry, startTracing, type Tracing, tracingOn } from './telemetry/tracing.js';
export { type DrainReport, VectorSyncer } from './vectors/vector-sync.js';
