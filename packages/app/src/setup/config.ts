import type { CompressorConfig, EmbedderConfig } from '@memfade/ai';
import { type PriceTable, type StagePolicy, stagePolicy } from '@memfade/core';
import type { Mapping } from '@memfade/db/mapping';
import type { BatchSettings } from '../batch/batch-requests.js';
import type { TracesConfig } from '../telemetry/tracing.js';
import { type CatchUp, type Env, envSchema } from './env-schema.js';
import { loadMapping } from './mapping-file.js';

/**
 * memfade's configuration, made from the environment variables env-schema.ts reads and checks
 * (docs/configuration.md lists them all).
 */

/** MODEL_MODE and the batch settings the batch jobs read (batch/batch-requests.ts). */
export interface BatchConfig extends BatchSettings {
  mode: 'batch' | 'sync';
  /** A run with fewer due memories goes sync (BATCH_MIN_CALLS). */
  minCalls: number;
}

/** Which vector store, and the settings of each (only the chosen one's are used). */
export interface VectorConfig {
  kind: Env['VECTOR_STORE'];
  /** LanceDB's folder. */
  dir: string;
  pgvector: { url?: string; table: string; poolSize: number };
  /** Records in the product's MongoDB (the connection memfade already opened). */
  mongodb: { collection: string; searchIndex: string };
}

export interface MemfadeConfig {
  redisUrl?: string;
  mongodbUri?: string;
  mongodbDb: string;
  /** How long opening MongoDB or Redis may take before a command fails (CONNECT_TIMEOUT_MS). */
  connectTimeoutMs: number;
  queuePrefix: string;
  schedule: { cron: string; tz: string; enabled: boolean; catchUp: CatchUp };
  concurrency: number;
  /** BullMQ lock duration and stalled-job check interval (JOB_LOCK_MS). */
  jobLockMs: number;
  /** The first retry delay of a failed compress job (JOB_RETRY_BACKOFF_MS; queues.ts scales the others). */
  retryBackoffMs: number;
  provider: CompressorConfig;
  embedder: EmbedderConfig & { dimensions: number };
  /** Model requests per minute for the whole queue (0 = unlimited). */
  modelRpm: number;
  prices: PriceTable;
  /** Batch mode (README "Batch mode"); applies to the anthropic and openai providers only. */
  batch: BatchConfig;
  vector: VectorConfig;
  vectorSync: { enabled: boolean; batchSize: number; intervalMs: number };
  policy: StagePolicy;
  /** `memfade eval`'s judge model (EVAL_JUDGE_MODEL); unset = the answering model, with a warning. */
  evalJudgeModel?: string;
  /** Wall-clock limit of one compress job in ms (0 = none). */
  jobTimeoutMs: number;
  /** Due memories one run enqueues at most (0 = no cap). */
  runMaxMemories: number;
  /** NIGHT_BUDGET_USD / NIGHT_BUDGET_TOKENS, USER_NIGHT_BUDGET_USD (0 = none); a model provider's runs only. */
  nightBudget: { usd: number; tokens: number; userUsd?: number };
  dashboard: {
    host: string;
    port: number;
    user?: string;
    password?: string;
    readOnly: boolean;
    /** DASHBOARD_ALLOWED_HOSTS: Host header names answered besides `host` and localhost (lower case). */
    allowedHosts?: string[];
    /** METRICS_TOKEN: /metrics asks for this bearer token instead of the dashboard's credentials. */
    metricsToken?: string;
  };
  logLevel: Env['LOG_LEVEL'];
  shutdownGraceMs: number;
  /** Where the worker proves it is alive (WORKER_HEARTBEAT_FILE); unset = nowhere. */
  heartbeatFile?: string;
  /** The product's collections and field paths (MEMFADE_MAPPING), validated at start-up. */
  mapping: Mapping;
  /** The MEMFADE_MAPPING file the mapping came from; unset = the defaults. */
  mappingFile?: string;
  /** OpenTelemetry traces: on when an OTLP endpoint is set and OTEL_SDK_DISABLED is not. */
  traces: TracesConfig;
}

export function configFromEnv(env: Env): MemfadeConfig {
  return {
    redisUrl: env.REDIS_URL,
    mongodbUri: env.MONGODB_URI,
    mongodbDb: env.MONGODB_DB,
    connectTimeoutMs: Math.max(1, env.CONNECT_TIMEOUT_MS),
    queuePrefix: env.MEMFADE_QUEUE_PREFIX,
    schedule: {
      cron: env.SCHEDULE_CRON,
      tz: env.SCHEDULE_TZ,
      enabled: env.SCHEDULER_ENABLED,
      catchUp: env.CATCH_UP,
    },
    concurrency: Math.max(1, env.WORKER_CONCURRENCY),
    jobLockMs: Math.max(1_000, env.JOB_LOCK_MS),
    retryBackoffMs: env.JOB_RETRY_BACKOFF_MS,
    provider: compressorConfig(env),
    embedder: embedderConfig(env),
    modelRpm: env.MODEL_RPM,
    prices: env.MEMFADE_PRICES,
    batch: {
      mode: env.MODEL_MODE,
      minCalls: Math.max(1, env.BATCH_MIN_CALLS),
      maxRequests: env.BATCH_MAX_REQUESTS,
      pollMs: Math.max(100, env.BATCH_POLL_MS),
      deadlineMs: env.BATCH_DEADLINE_MS,
      afterDeadline: env.BATCH_AFTER_DEADLINE,
      maxRounds: Math.max(1, env.BATCH_MAX_ROUNDS),
      chunk: Math.max(1, env.BATCH_CHUNK),
      maxResumes: Math.max(1, env.BATCH_MAX_RESUMES),
      deleteFiles: env.BATCH_DELETE_FILES,
      perRequest: env.MEMORIES_PER_REQUEST,
    },
    vector: vectorConfig(env),
    vectorSync: {
      enabled: env.VECTOR_SYNC_ENABLED,
      batchSize: Math.max(1, env.VECTOR_SYNC_BATCH),
      intervalMs: env.VECTOR_SYNC_INTERVAL_MS,
    },
    policy: stagePolicy({
      v1AfterDays: env.STAGE_V1_DAYS,
      v2AfterDays: env.STAGE_V2_DAYS,
      minInputChars: env.MIN_INPUT_CHARS,
      maxChunkChars: env.MAX_CHUNK_CHARS,
      v1MaxChars: env.V1_MAX_CHARS,
      maxChunks: env.MAX_CHUNKS,
      maxInputBytes: env.MAX_INPUT_BYTES,
      outOfRange: env.OUT_OF_RANGE,
      v2Draft: env.V2_DRAFT,
      retention: { gate: env.RETENTION_GATE, minV1: env.RETENTION_MIN_V1, minV2: env.RETENTION_MIN_V2 },
    }),
    evalJudgeModel: env.EVAL_JUDGE_MODEL,
    jobTimeoutMs: env.JOB_TIMEOUT_MS,
    runMaxMemories: env.RUN_MAX_MEMORIES,
    nightBudget: {
      usd: env.NIGHT_BUDGET_USD,
      tokens: env.NIGHT_BUDGET_TOKENS,
      userUsd: env.USER_NIGHT_BUDGET_USD,
    },
    dashboard: {
      host: env.DASHBOARD_HOST,
      port: env.DASHBOARD_PORT,
      user: env.DASHBOARD_USER,
      password: env.DASHBOARD_PASSWORD,
      readOnly: env.DASHBOARD_READ_ONLY,
      allowedHosts: env.DASHBOARD_ALLOWED_HOSTS,
      metricsToken: env.METRICS_TOKEN,
    },
    logLevel: env.LOG_LEVEL,
    shutdownGraceMs: env.SHUTDOWN_GRACE_MS,
    heartbeatFile: env.WORKER_HEARTBEAT_FILE,
    traces: {
      enabled:
        !env.OTEL_SDK_DISABLED &&
        Boolean(env.OTEL_EXPORTER_OTLP_ENDPOINT || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT),
      serviceName: env.OTEL_SERVICE_NAME,
    },
    mapping: loadMapping(env.MEMFADE_MAPPING),
    mappingFile: env.MEMFADE_MAPPING,
  };
}

function vectorConfig(env: Env): VectorConfig {
  return {
    kind: env.VECTOR_STORE,
    dir: env.LANCEDB_DIR,
    pgvector: { url: env.PGVECTOR_URL, table: env.PGVECTOR_TABLE, poolSize: env.PGVECTOR_POOL_SIZE },
    mongodb: { collection: env.MONGODB_VECTOR_COLLECTION, searchIndex: env.MONGODB_VECTOR_INDEX },
  };
}

function compressorConfig(env: Env): CompressorConfig {
  const settings = {
    model: env.MEMFADE_MODEL,
    timeoutMs: env.MODEL_TIMEOUT_MS,
    maxTokens: env.MODEL_MAX_TOKENS,
    // A memory's date is a calendar day where the product's nights are.
    timeZone: env.SCHEDULE_TZ,
  };
  switch (env.MEMFADE_PROVIDER) {
    case 'offline':
      return { provider: 'offline', timeZone: settings.timeZone };
    case 'anthropic':
      return {
        provider: 'anthropic',
        ...settings,
        apiKey: env.ANTHROPIC_API_KEY,
        baseURL: env.ANTHROPIC_BASE_URL,
      };
    case 'openai':
      return {
        provider: 'openai',
        ...settings,
        apiKey: env.OPENAI_API_KEY,
        baseURL: env.OPENAI_BASE_URL,
        responseFormat: env.OPENAI_RESPONSE_FORMAT,
      };
  }
}

function embedderConfig(env: Env): EmbedderConfig & { dimensions: number } {
  if (env.MEMFADE_EMBEDDER === 'hashing')
    return { embedder: 'hashing', dimensions: env.EMBEDDING_DIMENSIONS };
  return {
    embedder: 'openai',
    model: env.EMBEDDING_MODEL,
    apiKey: env.EMBEDDING_API_KEY ?? env.OPENAI_API_KEY,
    baseURL: env.EMBEDDING_BASE_URL ?? env.OPENAI_BASE_URL,
    dimensions: env.EMBEDDING_DIMENSIONS,
    timeoutMs: env.MODEL_TIMEOUT_MS,
  };
}

/** The configuration with every default, for tests and the demo. */
export function defaultConfig(overrides: Partial<MemfadeConfig> = {}): MemfadeConfig {
  return { ...configFromEnv(envSchema.parse({})), ...overrides };
}
