export { commandsSent } from './command-log.js';
export { childEnv, workerMongoUri } from './env.js';
export { DELIMITER_VARIANTS, HOSTILE_MEMORIES, type HostileMemory } from './hostile-memories.js';
export type { BatchControls, EmulatedBatchInfo } from './llm-emulator/batches.js';
export type { Billed, BilledUsage } from './llm-emulator/billing.js';
export type { Fault, FaultRule } from './llm-emulator/faults.js';
export {
  type LlmEmulator,
  type LlmEmulatorOptions,
  type RecordedRequest,
  startLlmEmulator,
} from './llm-emulator/server.js';
export { tempDir, uniqueName } from './names.js';
export { type EmbeddedPostgres, startPgliteServer } from './pglite-server.js';
export { type PromHistogramData, type PromMetrics, parsePrometheus } from './prometheus.js';
export { runScript, type ScriptResult } from './run-script.js';
export { startTcpProxy, type TcpProxy } from './tcp-proxy.js';
export { until } from './wait.js';
