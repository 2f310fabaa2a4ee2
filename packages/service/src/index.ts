export { configFromEnv, defaultConfig, type Env, envSchema, type MemfadeConfig } from './config.js';
export { type Inspection, openForInspection } from './inspection.js';
export { loadMapping } from './mapping-file.js';
export { batchDeps, startSchedulerRole, startWorkerRole } from './roles.js';
export {
  createServices,
  type Operations,
  openOperations,
  type ServiceOptions,
  type Services,
} from './services.js';
