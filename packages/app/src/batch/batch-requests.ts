import { createHash } from 'node:crypto';
import type {
  BatchCompressor,
  BatchMemoryStore,
  ModelFailureReason,
  ModelPrice,
  PriceTable,
  StagePolicy,
  TargetStage,
} from '@memfade/core';
import {
  type BatchRepository,
  type BatchRequestRecord,
  type BatchRequestState,
  type BatchRequestUpdate,
  LIVE_REQUEST_STATES,
  type RunRepository,
} from '@memfade/db';
import { enqueueCompress, type MemfadeQueues } from '@memfade/queue';
import type { Logger } from 'pino';
import type { Amount, BudgetKeeper } from '../runs/budget.js';
import { carriedEnd, type MemoryEnd } from '../runs/outcome.js';
import type { RunTracker } from '../runs/run-tracker.js';

/**
 * Batch mode (README "Batch mode", docs/design.md §6): a run's due memories as requests of the
 * provider's batch API, in rounds. The producer writes one `pending` request record per memory
 * before anything is submitted; the submit job builds each request (the sync path's own prompt),
 * records what it stands for, records each batch before submitting it and its provider id once
 * accepted; poll jobs stream ended batches' results and apply each reply with the sync path's
 * validation and conditional write. Every step can run again: the records say what is done.
 */

export interface BatchSettings {
  /** Requests per batch at most; 0 = the provider's limit. */
  maxRequests: number;
  pollMs: number;
  /** Counted from the run's start: batches still open then are canceled. */
  deadlineMs: number;
  afterDeadline: 'sync' | 'next-night';
  maxRounds: number;
  /** Requests built or applied together (BATCH_CHUNK). */
  chunk: number;
  /** Resumes without progress before a run gives its requests up (BATCH_MAX_RESUMES, batch-recovery.ts). */
  maxResumes: number;
  /** Delete a batch's files at the provider once its results are applied (BATCH_DELETE_FILES). */
  deleteFiles: boolean;
  /** Memories of one user, language and role card per request at most (MEMORIES_PER_REQUEST; 1 = one each). */
  perRequest?: number;
}

export interface BatchDeps {
  store: BatchMemoryStore;
  batches: BatchRepository;
  runs: RunRepository;
  tracker: RunTracker;
  queues: MemfadeQueues;
  model: BatchCompressor;
  policy: StagePolicy;
  now: () => Date;
  settings: BatchSettings;
  prices?: PriceTable;
  /** The night's budget, when one is set: each request is reserved on it before it is added (budget.ts). */
  budget?: { keeper: BudgetKeeper; price?: ModelPrice };
  onTransition?: () => void;
  logger?: Logger;
}

/** A memory id as a custom id key: fixed length, [0-9a-f], whatever the product's ids hold. */
export function requestKey(memoryId: string): string {
  return createHash('sha256').update(memoryId).digest('hex').slice(0, 24);
}

/** The custom id of a memory's request in one round of a run: deterministic, so written once. */
export const requestId = (model: BatchCompressor, runId: string, round: number, memoryId: string) =>
  model.customId({ runId, round }, requestKey(memoryId));

/**
 * Batches live in the provider's time, and the deadline and result times are durations since the
 * run's start (itself wall-clock): never the logical `now` a run is computed for (asOf, tests).
 */
export const wallClock = () => new Date();

/** The batch counters a request's result line adds (run record `batches.requests.<key>`). */
export type ResultCount = 'succeeded' | 'errored' | 'canceled' | 'expired' | 'applied';

/**
 * What a chunk of a round's requests came to, written together: a chunk of a results file (or of a
 * round being submitted) costs a few writes instead of a few per request. Written in this order,
 * so that a crash anywhere leaves records that are settled again and counted by nobody twice:
 * next-round requests; the run's counts of the memories that ended (each claimed once, RunTracker);
 * each record's new state; the batch counters of the records this caller moved (another poller of
 * the same batch moves and counts the rest); only then may the run finish on these counts, so a
 * finished run's record holds them all. A crash between the run's counts and the records leaves up
 * to a chunk of them counted and settled again later, still once; a crash between the records and
 * the batch counters leaves those display counters short by up to a chunk, never over.
 */
export class Outcomes {
  private readonly next: BatchRequestRecord[] = [];
  private readonly ended: MemoryEnd[] = [];
  private readonly moves: { customId: string; from: BatchRequestState[]; set: BatchRequestUpdate }[] = [];
  private counts = new Map<string, ResultCount[]>();
  /** Budget reservations to settle to what their request's calls were billed, by custom id. */
  private settlements = new Map<string, { reserved: Amount; billed: Amount; memoryId: string }>();
  /** The requests this caller moved on, in any write: their reservations are settled whenever asked. */
  private readonly moved = new Set<string>();

  constructor(
    private readonly runId: string,
    private readonly deps: BatchDeps,
  ) {}

  /** The record moves on to `set.state` from one of `from`; `counts` are added if this caller moves it. */
  move(
    record: BatchRequestRecord,
    from: BatchRequestState[],
    set: BatchRequestUpdate,
    counts: ResultCount[] = [],
  ) {
    this.moves.push({ customId: record.customId, from, set });
    if (counts.length) this.counts.set(record.customId, counts);
  }

  /**
   * The memory's run counts it (once, whoever else settles the same record: outcome.ts), then its
   * record is settled; `from`: the states it may be settled from (a live one, or `erased` by forget).
   */
  end(
    record: BatchRequestRecord,
    state: BatchRequestState,
    memoryEnd: Omit<MemoryEnd, 'target' | 'memoryId'>,
    counts: ResultCount[] = [],
    from: BatchRequestState[] = LIVE_REQUEST_STATES,
  ) {
    const discarded = [...(memoryEnd.discarded ?? []), ...(record.discarded ?? [])];
    const end = {
      ...memoryEnd,
      target: record.target,
      memoryId: record.memoryId,
      ...(discarded.length && { discarded }),
    };
    this.ended.push(end);
    this.move(record, from, { state }, counts);
  }

  /**
   * The request's calls are done, and were billed `billed` (its line, its retry and repair): its
   * reservation on the night's budget is settled to it by whoever moves the record on, once.
   */
  settle(record: BatchRequestRecord, billed: Amount) {
    const { reserved, memoryId } = record;
    if (reserved) this.settlements.set(record.customId, { reserved, billed, memoryId });
  }

  /** A request of the memory for the next round, written before this round's record is settled. */
  nextRound(record: BatchRequestRecord) {
    this.next.push(record);
  }

  /** Writes what was recorded so far; returns the requests this write moved on. */
  async write(resultAt?: Date): Promise<Set<string>> {
    const { deps, runId } = this;
    let movedNow = new Set<string>();
    await deps.batches.addRequests(this.next.splice(0));
    const moves = this.moves.splice(0);
    const { counts, settlements } = this;
    this.counts = new Map();
    this.settlements = new Map();
    // The records and counters are written before the run can finish with these memories' counts.
    await deps.tracker.memoriesEnded(runId, this.ended.splice(0), async () => {
      const moved = await deps.batches.transitionMany(moves);
      movedNow = moved;
      for (const customId of moved) this.moved.add(customId);
      const added: Record<string, number> = {};
      for (const customId of moved)
        for (const key of counts.get(customId) ?? [])
          added[`requests.${key}`] = (added[`requests.${key}`] ?? 0) + 1;
      if (Object.keys(added).length || (resultAt && moved.size))
        await deps.tracker.batchCounted(runId, added, moved.size && resultAt ? { resultAt } : {});
      for (const [customId, { reserved, billed, memoryId }] of settlements)
        if (this.moved.has(customId)) await deps.budget?.keeper.settle(runId, reserved, billed, memoryId);
    });
    return movedNow;
  }
}

/**
 * The store with these memories read in one query: the first loadMemory of each is served from
 * that read, any later one (a second look after a lost race) reads the memory again.
 */
export async function withPreloaded(store: BatchMemoryStore, memoryIds: string[]): Promise<BatchMemoryStore> {
  const read = await store.loadMemories(memoryIds);
  const unread = new Set(memoryIds);
  return {
    loadMemory: async (memoryId) =>
      unread.delete(memoryId) ? (read.get(memoryId) ?? null) : store.loadMemory(memoryId),
    loadMemories: (ids) => store.loadMemories(ids),
    loadRoleCard: (userId, partnerId) => store.loadRoleCard(userId, partnerId),
    applyTransition: (transition) => store.applyTransition(transition),
    applyTransitions: (transitions) => store.applyTransitions(transitions),
    discardStaleStages: (discard) => store.discardStaleStages(discard),
    recordError: (memoryId, error) => store.recordError(memoryId, error),
    fieldName: (field) => store.fieldName(field),
  };
}

/** Splits a stream into arrays of `size`: a results file is applied a chunk at a time. */
export async function* inChunks<T>(items: AsyncIterable<T>, size: number): AsyncGenerator<T[]> {
  let chunk: T[] = [];
  for await (const item of items) {
    chunk.push(item);
    if (chunk.length >= size) {
      yield chunk;
      chunk = [];
    }
  }
  if (chunk.length) yield chunk;
}

/**
 * Hands the memory to a compress job of the same run, which counts it when it ends, with the stages
 * batch rounds already applied to it (and replies thrown away) carried in its payload.
 */
export async function toSync(
  record: BatchRequestRecord,
  deps: BatchDeps,
  out: Outcomes,
  counts: ResultCount[] = [],
): Promise<void> {
  const { runId, memoryId, target } = record;
  const carried = {
    ...(record.carried?.length && { transitions: record.carried }),
    ...(record.discarded?.length && { discarded: record.discarded }),
  };
  // Handed over before its job exists, written at once: a submit killed between the job and the record left
  // the request live with its memory's work done, and the submit's retry sent it in a batch as well, work
  // twice, and the line's cost dropped with an end its memory had counted (simulate --seed 40021). Killed
  // between the two now, the memory is left for the next night.
  out.move(record, LIVE_REQUEST_STATES, { state: 'sync' }, counts);
  if (!(await out.write()).has(record.customId)) return;
  const added = await enqueueCompress(deps.queues, [
    { runId, memoryId, target, ...(Object.keys(carried).length && { carried }) },
  ]);
  // A job of this memory was already there (another run's, or a failed one still kept): this
  // run will not hear of it, so the memory is counted here.
  if (added.enqueued === 0) out.end(record, 'noop', carriedEnd(record.carried), [], ['sync']);
}

export async function fail(
  record: BatchRequestRecord,
  stage: TargetStage | 'input',
  message: string,
  deps: BatchDeps,
  out: Outcomes,
  counts: ResultCount[] = [],
  /**
   * retentionRefused: the retention gate refused the stage (counted on the run, as in the sync
   * path); reason: why the model's reply failed the memory (the fleet's model failures).
   */
  why: { retentionRefused?: boolean; reason?: ModelFailureReason } = {},
): Promise<void> {
  await deps.store.recordError(record.memoryId, {
    stage,
    message,
    at: deps.now(),
    attempts: record.attempts + 1,
  });
  out.end(
    record,
    'failed',
    {
      outcome: 'failed',
      transitions: record.carried,
      error: { memoryId: record.memoryId, stage, message },
      ...(why.retentionRefused && { retentionRefused: true }),
      ...(why.reason && { reason: why.reason }),
    },
    counts,
  );
}
