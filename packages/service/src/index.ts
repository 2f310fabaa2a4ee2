export { configFromEnv, defaultConfig, type Env, envSchema, type MemfadeConfig } from './config.js';
export { FleetMetrics } from './metrics.js';
export { createMetricsExposition, type MetricsExposition } from './metrics-exposition.js';
export { startSchedulerRole, startWorkerRole } from './roles.js';
export { enqueueRun, type RunRequest, RunWaitTimeout, waitForRun } from './run-now.js';
export { nightlyRunId, type Scheduler, startScheduler } from './scheduler.js';
export {
  createServices,
  type Operations,
  openOperations,
  type ServiceOptions,
  type Services,
} from './services.js';
