import type { TargetStage, Trigger, Usage } from '@memfade/core';

/** A compression run's record as stored (RunRepository stores it; the run tracker decides what it means). */

/** What started the run (core's one list of triggers). */
export type RunTrigger = Trigger;
export type RunOutcome = 'completed' | 'noop' | 'failed';

export interface RunCounts {
  /** Memories the producer found due. */
  selected: number;
  /**
   * Memories it enqueued, as compress jobs or batch requests (a memory whose job already existed,
   * e.g. from another run, is not counted).
   */
  enqueued: number;
  /** Memories of this run whose work ended: completed, no-op or failed for good. */
  processed: number;
  v1: number;
  v2: number;
  skipped: number;
  noop: number;
  failed: number;
  /**
   * Due memories the producer left for the next run because the run reached RUN_MAX_MEMORIES
   * (absent on runs recorded before the cap existed).
   */
  deferred?: number;
  /**
   * Due memories whose job was not added because a failed job of theirs is still kept in the
   * queue (BullMQ keeps job ids unique): `memfade retry-failed` puts them back.
   */
  heldBack?: number;
  /** Memories of an interrupted run that got no outcome; they stay due for the next run. */
  unprocessed?: number;
  /** Due memories another open run held with requests in flight (docs/design.md invariant 9): left to it. */
  inOtherRuns?: number;
  /**
   * The retention gate (docs/design.md §11): stages written with a warning because they kept too
   * few of their input's facts, and stages refused for it (RETENTION_GATE=refuse).
   */
  retentionWarned?: number;
  retentionRefused?: number;
}

export interface RunError {
  memoryId: string;
  stage: string;
  message: string;
  at: Date;
}

export interface RunRecord {
  runId: string;
  trigger: RunTrigger;
  asOf: Date;
  startedAt: Date;
  producerDoneAt?: Date;
  finishedAt?: Date;
  durationMs?: number;
  /**
   * Set when the run finished without an outcome for every memory it enqueued (Redis lost their
   * jobs, batch requests were given up, or its producer died).
   */
  interrupted?: boolean;
  /**
   * Set when the run was finished `interrupted` because its producer died before it had handed
   * out every due memory (docs/design.md invariant 12): what the run tracker found.
   */
  producerDied?: string;
  users: number;
  counts: RunCounts;
  tokens: { v1: Usage; v2: Usage };
  /** US dollars per stage, from the price table at the time each memory was compressed. */
  cost: { v1: number; v2: number };
  /**
   * Calls whose reply never came (a timeout, a dropped connection, an abort): the provider may
   * have billed them, nobody can say how much, so they are not in `tokens` and `cost` but here, at
   * what each could cost at most (docs/design.md invariant 9). Absent when there were none.
   */
  unanswered?: { calls: number; tokens: number; usd: number };
  ratioSums: { v1: { sum: number; n: number }; v2: { sum: number; n: number } };
  /** The last errors of the run (up to 100), oldest first; stored in their own collection. */
  errors: RunError[];
  /** How the run called the model, and its batches (README "Batch mode"); absent on older runs. */
  batches?: RunBatches;
  /** Set when NIGHT_BUDGET_USD or NIGHT_BUDGET_TOKENS is: what its requests reserved, and whether it was reached. */
  budget?: RunBudget;
  /**
   * The run's dearest users (up to 10), written just before it is marked finished (so a finished
   * run has them); every user's amounts are in the ledger (`compression_user_costs`, user-costs.ts).
   */
  topUsers?: TopUser[];
  /** USER_NIGHT_BUDGET_USD, when set: memories left due because their user's cap would have been passed. */
  userBudget?: { limitUsd: number; overBudget?: number; users?: number };
}

/** One of a run's dearest users, on its record. */
export interface TopUser {
  userId: string;
  cost: number;
  /** Every token billed for the user's memories (input, output, cache reads and writes). */
  tokens: number;
  memories: number;
}

/** A run's model mode and, in batch mode, its batches and requests by outcome. */
export interface RunBatches {
  mode: 'batch' | 'sync';
  /** Why a run that could have used batches did not (below BATCH_MIN_CALLS, a backfill, ...). */
  reason?: string;
  submitted?: number;
  ended?: number;
  requests?: Partial<Record<'succeeded' | 'errored' | 'expired' | 'canceled' | 'applied', number>>;
  firstResultAt?: Date;
  lastResultAt?: Date;
  /** Set when the deadline canceled batches: what was left went `sync` or waits for `next-night`. */
  afterDeadline?: 'sync' | 'next-night';
  /** Times the run's batch jobs were started again with requests left (batch-recovery.ts). */
  resumes?: number;
  /** Requests left at the latest resume, and resumes in a row that settled none since. */
  liveAtResume?: number;
  stuck?: number;
  /** Requests the run gave up after BATCH_MAX_RESUMES resumes without progress. */
  givenUp?: number;
}

/** A run's night budget (queue/budget.ts): what its requests reserved, and whether it was reached. */
export interface RunBudget {
  /** What the run's calls were billed, plus what is reserved for calls still possible (budget.ts). */
  usd: number;
  tokens: number;
  /** The limits (0 = none) as configured when it was reached. */
  limitUsd?: number;
  limitTokens?: number;
  reachedAt?: Date;
  /** Memories left due because their request would have passed the budget. */
  overBudget?: number;
}

/** One stage a memory's work applied, as the run counts it. */
export interface TransitionCount {
  stage: TargetStage;
  skipped: boolean;
  usage: Usage;
  ratio: number;
  cost?: number;
  /** Written with a retention-gate warning. */
  retentionWarned?: boolean;
}

/** A model call the run paid for and did not keep (the product edited the memory meanwhile). */
export interface DiscardedCount {
  stage: TargetStage;
  usage: Usage;
  cost?: number;
}

/** A paid call counted on its run and on its memory's owner's ledger (user-costs.ts). */
export type PaidItem = DiscardedCount & { memoryId: string };

/** How one memory's end (its work towards its target stage ended for good) counts in its run. */
export interface MemoryEndCounts {
  outcome: RunOutcome;
  /** The memory: its owner's ledger gets the end's amounts (user-costs.ts). */
  memoryId?: string;
  transitions?: TransitionCount[];
  discarded?: DiscardedCount[];
  /** Failed because the retention gate refused its stage. */
  retentionRefused?: boolean;
}

/** What deciding whether a run is complete needs. */
export type RunState = Pick<
  RunRecord,
  'counts' | 'producerDoneAt' | 'finishedAt' | 'startedAt' | 'interrupted'
>;

/** What a run's memories say it did: each history entry and each error names its run. */
export interface MemoryCounts {
  v1: number;
  v2: number;
  skipped: number;
  /** Memories with at least one stage applied by the run. */
  advanced: number;
  /** Memories listed in the run's errors that still carry their error (not compressed since). */
  failed: number;
  /** Of those, the ones the run also advanced (V1 applied, then V2 failed). */
  failedAndAdvanced: number;
}
