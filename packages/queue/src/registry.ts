import { type TargetStage, TRIGGERS } from '@memfade/core';
import type { DefaultJobOptions } from 'bullmq';
import { z } from 'zod';

/** The one registry of queues and their jobs: payload schemas, job names, ids and options (docs/design.md §10). */

export const triggerSchema = z.enum(TRIGGERS);

export const selectionSchema = z.object({
  userIds: z.array(z.string().min(1)).optional(),
  /** Only these target stages (a backfill of `--stage v2` touches v1 memories only). */
  stages: z.array(z.enum(['v1', 'v2'])).optional(),
  /** Only memories at least this many days old (on top of the stage policy). */
  olderThanDays: z.number().int().min(0).optional(),
  limit: z.number().int().min(1).optional(),
});
export type Selection = z.infer<typeof selectionSchema>;

export const nightlyRunPayload = z.object({
  runId: z.string().min(1),
  trigger: triggerSchema,
  /** The instant the due scan is computed for (ISO 8601). */
  asOf: z.iso.datetime(),
  selection: selectionSchema.default({}),
});
export type NightlyRunPayload = z.infer<typeof nightlyRunPayload>;

// Messages written for the operator: a job added around the typed enqueue fails with them.
const usageSchema = z.object({
  inputTokens: z.number(),
  outputTokens: z.number(),
  cacheReadTokens: z.number(),
  cacheWriteTokens: z.number(),
});
const stageSchema = z.enum(['v1', 'v2'], { error: 'expected v1 or v2' });

export const compressPayload = z.object({
  runId: z.string({ error: 'missing or not a string' }).min(1, { error: 'empty' }),
  memoryId: z.string({ error: 'missing or not a string' }).min(1, { error: 'empty' }),
  target: stageSchema,
  /**
   * Batch mode handing a memory to the sync path (after the deadline): the stages its batch rounds
   * already applied, and the replies they threw away, counted in the run with this job's own.
   */
  carried: z
    .object({
      transitions: z
        .array(
          z.object({
            stage: stageSchema,
            skipped: z.boolean(),
            usage: usageSchema,
            ratio: z.number(),
            cost: z.number().optional(),
            retentionWarned: z.boolean().optional(),
          }),
        )
        .optional(),
      discarded: z
        .array(z.object({ stage: stageSchema, usage: usageSchema, cost: z.number().optional() }))
        .optional(),
    })
    .optional(),
});
export type CompressPayload = z.infer<typeof compressPayload>;

/** Batch mode: submit a run's round of requests, or poll its batches (README "Batch mode"). */
/**
 * `resume`: how many times the run tracker started the run's batch jobs again after they had all
 * ended with requests left without an outcome (batch-recovery.ts); part of the job ids, so a
 * resumed chain is new jobs beside the failed ones BullMQ keeps.
 */
const resume = z.number().int().min(1).optional();

export const batchSubmitPayload = z.object({
  runId: z.string().min(1),
  round: z.number().int().min(0),
  resume,
});
export type BatchSubmitPayload = z.infer<typeof batchSubmitPayload>;

export const batchPollPayload = z.object({
  runId: z.string().min(1),
  round: z.number().int().min(0),
  /** How many polls of this round came before: part of the job id, so each poll is one job. */
  poll: z.number().int().min(0),
  resume,
  /**
   * The run gave its requests up (batch-recovery.ts) while batches of this round were still at the
   * provider: this chain cancels them and counts the lines that come all the same, applying none.
   */
  drain: z.literal(true).optional(),
});
export type BatchPollPayload = z.infer<typeof batchPollPayload>;

/** A batch queue's payload: either job's (the catalog's schemas are strict, so neither passes for the other). */
export type BatchPayload = BatchSubmitPayload | BatchPollPayload;

/**
 * Job names say what a job does, so Bull Board's lists read `nightly-run` and `compress-v1`
 * instead of one name for everything; the name picks the job's payload schema and handler in the
 * catalog below.
 */
export const NIGHTLY_RUN_JOB = 'nightly-run';
export const compressJobName = (target: TargetStage) => `compress-${target}` as const;

export const BATCH_SUBMIT_JOB = 'batch-submit';
export const BATCH_POLL_JOB = 'batch-poll';

const DAY_S = 24 * 60 * 60;

/**
 * The job catalog: every queue's name, default job options, and jobs (job name -> payload schema).
 * The worker's job table (app/src/setup/workers.ts) must give each job name a handler (JobHandlers),
 * and every job's payload is parsed by its schema before the handler runs (jobs.ts, docs/design.md
 * §2 "How a job is dispatched").
 */
export const QUEUES = {
  nightly: {
    name: 'memfade-nightly',
    jobs: { [NIGHTLY_RUN_JOB]: nightlyRunPayload },
    defaults: {
      // A night's producer must outlast an outage of MongoDB at 03:00 (a failover, a restart): with
      // 3 attempts it gave up after 30 s and the night was lost (simulate --seed 424, at the
      // simulator's 300 ms backoff). 8 attempts wait about 21 minutes; every attempt is safe to
      // run again (a producer delivered again reports what the first did: nightly-run.ts).
      attempts: 8,
      backoff: { type: 'exponential', delay: 10_000 },
      removeOnComplete: { age: 30 * DAY_S },
      removeOnFail: { age: 30 * DAY_S },
    },
  },
  compress: {
    name: 'memfade-compress',
    // One job per memory and target stage: one schema and one handler, two names for Bull Board.
    jobs: { 'compress-v1': compressPayload, 'compress-v2': compressPayload },
    defaults: {
      attempts: 5,
      backoff: { type: 'exponential', delay: 5_000, jitter: 0.5 },
      // Completed jobs are kept a day so a run's retried producer finds its own jobs and adds
      // nothing (another run replaces them: enqueueCompress); bounded so millions of memories do
      // not pile up in Redis.
      removeOnComplete: { age: DAY_S, count: 200_000 },
      // Failed jobs expire before the next night, so a transient failure is retried then (the
      // next night's producer replaces one older than this: enqueueCompress).
      removeOnFail: { age: 20 * 60 * 60 },
    },
  },
  batch: {
    name: 'memfade-batch',
    jobs: { [BATCH_SUBMIT_JOB]: batchSubmitPayload.strict(), [BATCH_POLL_JOB]: batchPollPayload.strict() },
    defaults: {
      // Submitting and polling call the provider: transient failures retry with backoff; every
      // step is safe to run again (records in MongoDB say what is done).
      attempts: 8,
      backoff: { type: 'exponential', delay: 10_000, jitter: 0.5 },
      removeOnComplete: { age: 7 * DAY_S },
      removeOnFail: { age: 7 * DAY_S },
    },
  },
} as const satisfies Record<
  string,
  { name: string; jobs: Record<string, z.ZodType>; defaults: DefaultJobOptions }
>;

export type QueueKey = keyof typeof QUEUES;
type Jobs<Q extends QueueKey> = (typeof QUEUES)[Q]['jobs'];
/** The names of a queue's jobs, as the catalog lists them. */
export type JobName<Q extends QueueKey> = keyof Jobs<Q> & string;
/** A job's payload as its schema parses it (defaults applied). */
export type JobPayload<Q extends QueueKey, N extends JobName<Q>> = z.output<Jobs<Q>[N]>;
/** Any of a queue's payloads: what its BullMQ queue and worker carry. */
export type QueuePayload<Q extends QueueKey> = { [N in JobName<Q>]: JobPayload<Q, N> }[JobName<Q>];

const escapeId = (id: string) => id.replaceAll('%', '%25').replaceAll(':', '%3A');

const resumed = (resume: number | undefined) => (resume ? `.r${resume}` : '');

/** Deterministic: a round is submitted by one job, however often it is asked for. */
export const batchSubmitJobId = (runId: string, round: number, resume?: number) =>
  `${escapeId(runId)}.submit.${round}${resumed(resume)}`;
/** Deterministic: each poll of a round is one job, so two replicas re-adding it add one. */
export const batchPollJobId = (
  runId: string,
  round: number,
  poll: number,
  resume?: number,
  drain?: boolean,
) => `${escapeId(runId)}.poll.${round}.${poll}${resumed(resume)}${drain ? '.drain' : ''}`;

/** BullMQ rejects ':' in custom job ids (docs/design.md invariant 3), so it is escaped, with '%' first. */
export function compressJobId(memoryId: string, target: TargetStage): string {
  return `${escapeId(memoryId)}.${target}`;
}
