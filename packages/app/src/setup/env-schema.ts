import { errorMessage, priceTableSchema } from '@memfade/core';
import { z } from 'zod';
import { cronProblem, timeZoneProblem } from '../nightly/scheduler.js';
import { crossSettingProblems, crossSettingsParsed, problem } from './config-checks.js';

/**
 * memfade's environment variables and their checks (docs/configuration.md lists them all). Each app
 * parses them once in its env.ts; nothing else reads the environment. config.ts turns the parsed
 * settings into the configuration the application is given.
 */

const int = (fallback: number) => z.coerce.number().int().min(0).default(fallback);
const share = (fallback: number) => z.coerce.number().min(0).max(1).default(fallback);
const bool = (fallback: boolean) =>
  z
    .enum(['true', 'false', '1', '0'])
    .default(fallback ? 'true' : 'false')
    .transform((v) => v === 'true' || v === '1');

export const envSchema = z
  .object({
    REDIS_URL: z.string().url().optional(),
    MONGODB_URI: z
      .string()
      .startsWith('mongodb', { error: 'must be a mongodb:// or mongodb+srv:// URI' })
      .optional(),
    MONGODB_DB: z.string().min(1).default('memfade'),
    /** How long a command (and the worker's MongoDB) waits for a connection before failing. */
    CONNECT_TIMEOUT_MS: int(10_000),
    MEMFADE_QUEUE_PREFIX: z.string().min(1).default('memfade'),
    // Checked here, with every other setting, not when the scheduler starts: a worker refuses a bad
    // schedule before it creates or connects anything (docs/configuration.md).
    SCHEDULE_CRON: z.string().default('0 3 * * *').superRefine(problem(cronProblem)),
    /** Also the zone a memory's date is a calendar day in (the prompts): checked whether or not the scheduler runs. */
    SCHEDULE_TZ: z.string().default('UTC').superRefine(problem(timeZoneProblem)),
    SCHEDULER_ENABLED: bool(true),
    /**
     * Whether a worker that starts after today's fire time runs the missed night at once: `never`,
     * `after-first-run` (only once a scheduled night has run on this database: a first start on a new
     * database never compresses the whole history unannounced) or `always`.
     */
    CATCH_UP: z.enum(['never', 'after-first-run', 'always']).default('after-first-run'),
    WORKER_CONCURRENCY: int(16),
    /** How long a worker's hold on a job lasts unrenewed: a crashed worker's jobs run again after about this. */
    JOB_LOCK_MS: int(30_000),
    /** A failed compress job's first retry waits this long, doubling after; nightly and batch jobs twice as long. */
    JOB_RETRY_BACKOFF_MS: int(5_000),
    MEMFADE_PROVIDER: z.enum(['offline', 'anthropic', 'openai']).default('offline'),
    MEMFADE_MODEL: z.string().min(1).optional(),
    ANTHROPIC_API_KEY: z.string().min(1).optional(),
    ANTHROPIC_BASE_URL: z.string().url().optional(),
    OPENAI_API_KEY: z.string().min(1).optional(),
    OPENAI_BASE_URL: z.string().url().optional(),
    OPENAI_RESPONSE_FORMAT: z.enum(['json_schema', 'json_object']).default('json_schema'),
    MODEL_TIMEOUT_MS: int(60_000),
    /** The ceiling of max_tokens: each call asks for its stage's budget below it (docs/prompts.md). */
    MODEL_MAX_TOKENS: int(16_000),
    /** Model requests per minute across every worker of the queue; 0 = no limit. */
    MODEL_RPM: int(0),
    /** How scheduled and run-now nights call the model: `batch` (the providers' batch APIs, half price) or `sync`. */
    MODEL_MODE: z.enum(['batch', 'sync']).default('batch'),
    /** A run with fewer due memories than this goes sync: a batch is not worth its wait. */
    BATCH_MIN_CALLS: int(50),
    /** Requests per batch at most; 0 = the provider's limit. */
    BATCH_MAX_REQUESTS: int(0),
    BATCH_POLL_MS: int(60_000),
    /** Batches not ended this long after their run started are canceled. */
    BATCH_DEADLINE_MS: int(23 * 60 * 60 * 1000),
    /** What a canceled or late batch leaves: `sync` (compress jobs now) or `next-night` (due again then). */
    BATCH_AFTER_DEADLINE: z.enum(['sync', 'next-night']).default('sync'),
    /** Rounds a request is sent in at most (a retryable error goes into the next round). */
    BATCH_MAX_ROUNDS: int(3),
    /** Requests built or applied together: their records and memories read in one query, their outcomes written together. */
    BATCH_CHUNK: int(100),
    /**
     * Times a run's batch jobs are started again, without any request getting its outcome in
     * between, before the run gives its remaining requests up and finishes `interrupted`.
     */
    BATCH_MAX_RESUMES: int(5),
    /** Delete a batch's input and result files at the provider once its results are applied. */
    BATCH_DELETE_FILES: bool(true),
    /** Batch mode: up to this many memories of one user, language and role card in one request (1 = one each). */
    MEMORIES_PER_REQUEST: z.coerce
      .number({ error: 'must be a whole number from 1 to 8' })
      .int({ error: 'must be a whole number from 1 to 8' })
      .min(1, { error: 'must be a whole number from 1 to 8' })
      .max(8, { error: 'must be a whole number from 1 to 8' })
      .default(1),
    MEMFADE_PRICES: z
      .string()
      .default('{}')
      .transform((text, ctx) => {
        try {
          return priceTableSchema.parse(JSON.parse(text));
        } catch (error) {
          ctx.addIssue({ code: 'custom', message: `not a price table: ${errorMessage(error)}` });
          return z.NEVER;
        }
      }),
    MEMFADE_EMBEDDER: z.enum(['hashing', 'openai']).default('hashing'),
    EMBEDDING_MODEL: z.string().min(1).optional(),
    EMBEDDING_API_KEY: z.string().min(1).optional(),
    EMBEDDING_BASE_URL: z.string().url().optional(),
    EMBEDDING_DIMENSIONS: int(256),
    VECTOR_STORE: z.enum(['lancedb', 'pgvector', 'mongodb']).default('lancedb'),
    LANCEDB_DIR: z.string().default('.memfade/lancedb'),
    /** Required with VECTOR_STORE=pgvector; its password is a secret. */
    PGVECTOR_URL: z
      .string()
      .regex(/^postgres(ql)?:\/\//, { error: 'must be a postgres:// or postgresql:// URL' })
      .optional(),
    PGVECTOR_TABLE: z.string().min(1).default('memfade_vectors'),
    PGVECTOR_POOL_SIZE: z.coerce.number().int().min(1).default(4),
    MONGODB_VECTOR_COLLECTION: z.string().min(1).default('memfade_vectors'),
    MONGODB_VECTOR_INDEX: z.string().min(1).default('memfade_vector_index'),
    /** Off on replicas that cannot reach the LanceDB folder: the outbox keeps their writes for one that can. */
    VECTOR_SYNC_ENABLED: bool(true),
    VECTOR_SYNC_BATCH: int(1024),
    VECTOR_SYNC_INTERVAL_MS: int(5_000),
    STAGE_V1_DAYS: int(3),
    STAGE_V2_DAYS: int(7),
    MIN_INPUT_CHARS: int(100),
    MAX_CHUNK_CHARS: int(12_000),
    /** V1's absolute ceiling (code points), whatever the input's length. */
    V1_MAX_CHARS: int(6_000),
    MAX_CHUNKS: int(16),
    MAX_INPUT_BYTES: int(1_000_000),
    /** Wall-clock limit of one memory's whole compression job; 0 = none. */
    JOB_TIMEOUT_MS: int(600_000),
    /** Due memories one run enqueues at most, oldest first; 0 = no cap. */
    RUN_MAX_MEMORIES: int(0),
    /** A night (run) stops requesting model calls before passing this many US dollars; 0 = no budget. */
    NIGHT_BUDGET_USD: z.coerce.number().min(0).default(0),
    /** ... or this many tokens (input + output, estimated before each request); 0 = no budget. */
    NIGHT_BUDGET_TOKENS: int(0),
    /** Each user's memories stop requesting model calls in a run before passing this many US dollars; 0 = no cap. */
    USER_NIGHT_BUDGET_USD: z.coerce.number().min(0).default(0),
    OUT_OF_RANGE: z.enum(['warn', 'fail']).default('warn'),
    /** V1's call also writes the V2 draft, made V2 on its day without a call (docs/design.md §4). */
    V2_DRAFT: z.enum(['with-v1', 'separate']).default('with-v1'),
    /** What a stage that keeps too few of its input's facts gets: written with a warning, or refused (docs/design.md §11). */
    RETENTION_GATE: z.enum(['warn', 'refuse']).default('warn'),
    /** The share of its input's facts V1 must keep (0 = no gate); measured on the shared sets (docs/eval). */
    RETENTION_MIN_V1: share(0.6),
    RETENTION_MIN_V2: share(0.5),
    /** `memfade eval`: the model that judges the answers (same provider), never the one that answers. */
    EVAL_JUDGE_MODEL: z.string().min(1).optional(),
    DASHBOARD_HOST: z.string().default('127.0.0.1'),
    DASHBOARD_PORT: int(3000),
    DASHBOARD_USER: z.string().min(1).optional(),
    DASHBOARD_PASSWORD: z.string().min(1).optional(),
    DASHBOARD_READ_ONLY: bool(false),
    /** Host names the dashboard answers to besides DASHBOARD_HOST and localhost (comma-separated, no port). */
    DASHBOARD_ALLOWED_HOSTS: z
      .string()
      .default('')
      .transform((text, ctx) => {
        const names = text
          .split(',')
          .map((name) => name.trim().toLowerCase())
          .filter(Boolean);
        const bad = names.find((name) => !/^([a-z0-9-]+(\.[a-z0-9-]+)*|\[[0-9a-f:.]+\])$/.test(name));
        if (bad === undefined) return names;
        ctx.addIssue({
          code: 'custom',
          message: `"${bad}" is not a host name (write names like dashboard.example.com or [2001:db8::1], no scheme or port)`,
        });
        return z.NEVER;
      }),
    /** When set, /metrics takes `Authorization: Bearer <token>` instead of the dashboard's credentials. */
    METRICS_TOKEN: z.string().min(1).optional(),
    LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
    SHUTDOWN_GRACE_MS: int(30_000),
    /** The worker's liveness file for a container health check (apps/worker/src/heartbeat.ts). */
    WORKER_HEARTBEAT_FILE: z.string().min(1).optional(),
    /** Where the product keeps memories and role cards (docs/mapping.md); unset = memfade's field names. */
    MEMFADE_MAPPING: z.string().min(1).optional(),
    // OpenTelemetry traces (telemetry/tracing.ts): on with either endpoint; the SDK reads the other OTEL_*.
    OTEL_EXPORTER_OTLP_ENDPOINT: z.string().url().optional(),
    OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: z.string().url().optional(),
    OTEL_SERVICE_NAME: z.string().min(1).default('memfade'),
    OTEL_SDK_DISABLED: bool(false),
  })
  // Settings that depend on others: named in the same error as every bad setting (parseEnv).
  .superRefine(crossSettingProblems, { when: crossSettingsParsed });

export type Env = z.infer<typeof envSchema>;
export type CatchUp = Env['CATCH_UP'];
