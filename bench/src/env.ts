import { VECTOR_BENCH_STORES, type VectorBenchStore } from './vector-scaling.js';

/** Benchmark sizes: the defaults, smaller for a smoke run. */
export const benchEnv = {
  memories: Number(process.env.BENCH_MEMORIES ?? 200_000),
  users: Number(process.env.BENCH_USERS ?? 2_000),
  redisUrl: process.env.REDIS_URL || undefined,
  mongodbUri: process.env.MONGODB_URI || undefined,
  resultsDir: process.env.BENCH_RESULTS_DIR ?? 'bench/results',
  ceilingMemories: Number(process.env.BENCH_CEILING_MEMORIES ?? 5_000),
  /** `anthropic`: ceiling-main.ts runs the SDK against the emulator; anything else, the offline compressor. */
  ceilingProvider:
    process.env.BENCH_CEILING_PROVIDER === 'anthropic' ? ('anthropic' as const) : ('offline' as const),
  latencyMs: Number(process.env.BENCH_LATENCY_MS ?? 1_000),
  concurrencies: (process.env.BENCH_CONCURRENCIES ?? '8,32,64,128').split(',').map(Number),
  memoriesPerSlot: Number(process.env.BENCH_MEMORIES_PER_SLOT ?? 8),
  sequentialMemories: Number(process.env.BENCH_SEQUENTIAL_MEMORIES ?? 120),
  scalingSizes: (process.env.BENCH_SCALING_SIZES ?? '1000,10000,50000').split(',').map(Number),
  floorCalls: Number(process.env.BENCH_FLOOR_CALLS ?? 2_000),
  vectorScalingSizes: (process.env.BENCH_VECTOR_SIZES ?? '1000,10000,50000').split(',').map(Number),
  vectorStores: (process.env.BENCH_VECTOR_STORES ?? VECTOR_BENCH_STORES.join(','))
    .split(',')
    .map(vectorStore),
  pgvectorUrl: process.env.PGVECTOR_URL || undefined,
  /** The night whose MongoDB commands are counted (db-cost.ts), each mode. */
  dbMemories: Number(process.env.BENCH_DB_MEMORIES ?? 1_000),
  dbUsers: Number(process.env.BENCH_DB_USERS ?? 50),
  /** Their conversations' length in characters at least: 800, where the bench's own are 150 zh, 400 en (0). */
  dbMemoryChars: Number(process.env.BENCH_DB_MEMORY_CHARS ?? 800),
  /** dueForV1: a night of V1 stages; dueForV2: raw memories due for V1 and V2 the same night. */
  dbAges: process.env.BENCH_DB_AGES === 'dueForV2' ? ('dueForV2' as const) : ('dueForV1' as const),
  /** `node bench/dist/db-main.js`: the modes whose nights are counted, comma-separated. */
  dbModes: (process.env.BENCH_DB_MODES ?? 'sync,batch').split(',').map(dbMode),
  batchMemories: Number(process.env.BENCH_BATCH_MEMORIES ?? 10_000),
  batchUsers: Number(process.env.BENCH_BATCH_USERS ?? 200),
  batchWorkers: Number(process.env.BENCH_BATCH_WORKERS ?? 2),
  /** The model the batch night is priced for (batch-night.ts LIST_PRICES), with its caching rules. */
  batchModel: process.env.BENCH_BATCH_MODEL ?? 'claude-haiku-4-5',
  /** The lifetime cost table (lifetime-cost.ts): conversations of each shared set; 0 leaves it out. */
  lifetimePerSet: Number(process.env.BENCH_LIFETIME_PER_SET ?? 40),
  /** Its models (LIST_PRICES), comma-separated; every real one by default. */
  lifetimeModels: process.env.BENCH_LIFETIME_MODELS?.split(',').filter(Boolean),
  /** Its "batch, draft, N per request" columns (MEMORIES_PER_REQUEST), comma-separated; empty leaves them out. */
  lifetimePerRequest: (process.env.BENCH_LIFETIME_PER_REQUEST ?? '2,4')
    .split(',')
    .filter(Boolean)
    .map(Number),
  /** The batch night of BENCH_BATCH_MEMORIES (CPU per memory, ~200-token memories); 0 leaves it out. */
  batchNight: process.env.BENCH_BATCH_NIGHT !== '0',
  /** NODE_OPTIONS of the worker processes, e.g. '--cpu-prof --cpu-prof-dir=/tmp/prof' to profile them. */
  workerNodeOptions: process.env.BENCH_WORKER_NODE_OPTIONS || undefined,
  /**
   * Flags on the worker processes' node command line, space-separated: V8's own flags (e.g.
   * '--single-threaded-gc') are refused in NODE_OPTIONS but accepted here.
   */
  /** `pnpm bench:eval-sets`: V2 from the draft written with V1 (with-v1), or from V1 (the default). */
  v2Draft: process.env.BENCH_V2_DRAFT === 'with-v1' ? ('with-v1' as const) : ('separate' as const),
  /** `pnpm bench:eval`: each set repeated up to this many conversations, evaluated this many times. */
  evalConversations: Number(process.env.BENCH_EVAL_CONVERSATIONS ?? 1_000),
  evalRuns: Number(process.env.BENCH_EVAL_RUNS ?? 3),
  workerNodeFlags: (process.env.BENCH_WORKER_NODE_FLAGS ?? '').split(' ').filter(Boolean),
  /** `pnpm bench:traces`: pairs of nights (off, on), their size, and the traced runs' sampler. */
  tracesPairs: Number(process.env.BENCH_TRACES_PAIRS ?? 3),
  tracesMemories: Number(process.env.BENCH_TRACES_MEMORIES ?? 400),
  tracesConcurrency: Number(process.env.BENCH_TRACES_CONCURRENCY ?? 16),
  tracesSampler: process.env.BENCH_TRACES_SAMPLER || undefined,
};

function dbMode(name: string): 'sync' | 'batch' {
  if (name !== 'sync' && name !== 'batch')
    throw new Error(`BENCH_DB_MODES: unknown mode '${name}' (sync, batch)`);
  return name;
}

function vectorStore(name: string): VectorBenchStore {
  const store = VECTOR_BENCH_STORES.find((s) => s === name);
  if (!store)
    throw new Error(`BENCH_VECTOR_STORES: unknown store '${name}' (${VECTOR_BENCH_STORES.join(', ')})`);
  return store;
}
