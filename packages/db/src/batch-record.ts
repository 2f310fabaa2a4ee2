import type { Stage, TargetStage } from '@memfade/core';
import type { DiscardedCount, TransitionCount } from './run-record.js';

/** Batch mode's records as stored (BatchRepository stores them; the batch jobs decide what they mean). */

/**
 * A batch request's life: `pending` (written by the producer, before anything is submitted),
 * `prepared` (its prompt built, what it stands for recorded), `submitted` (in a batch the provider
 * accepted), then one outcome: `applied`, `retried` (sent again in the next round), `failed`,
 * `sync` (handed to a compress job), `noop` (nothing to do, or the memory moved on), `deferred`
 * (left for the next night after the deadline), `interrupted` (its run gave it up: resumed
 * BATCH_MAX_RESUMES times without progress; the memory is due again the next night), `erased`
 * (`memfade forget` took its memory back while it was in flight: its result is never applied),
 * then `forgotten` once its result line was seen and paid for (counted, never read further).
 */
export type BatchRequestState =
  | 'pending'
  | 'prepared'
  | 'submitted'
  | 'applied'
  | 'retried'
  | 'failed'
  | 'sync'
  | 'noop'
  | 'deferred'
  | 'interrupted'
  | 'erased'
  | 'forgotten';

/** The states of a request still waiting for its outcome (docs/design.md invariant 9: none outlives its run). */
export const LIVE_REQUEST_STATES: BatchRequestState[] = ['pending', 'prepared', 'submitted'];

export interface BatchRequestRecord {
  runId: string;
  round: number;
  /** The provider custom id (batchCustomId): unique, so writing a request twice adds nothing. */
  customId: string;
  memoryId: string;
  /**
   * The memory's owner: `memfade forget --user` finds the user's requests by it after the product
   * has deleted the user's memories (an account deletion), when no memory names them any more;
   * with MEMORIES_PER_REQUEST > 1 a round is read in user order, so one user's requests come
   * together and share a request line. Absent on requests recorded before it was kept.
   */
  userId?: string;
  /** The stage the run takes the memory to (a raw V2-old memory: V1 in one round, V2 in the next). */
  target: TargetStage;
  /** The stage this request computes, and what it expects to find when its reply is applied. */
  stage?: TargetStage;
  expectedStage?: Stage;
  expectedRev?: number;
  inputHash?: string;
  state: BatchRequestState;
  batchId?: string;
  /** Rounds this stage of the memory was already sent in without an outcome. */
  attempts: number;
  error?: string;
  /** Stages of this memory applied in earlier rounds of the run, counted when its last one ends. */
  carried?: TransitionCount[];
  /** Replies paid for and thrown away (the product edited the memory meanwhile), counted with it. */
  discarded?: DiscardedCount[];
  /** What its calls were reserved at on the night's budget when it was prepared (app runs/budget.ts). */
  reserved?: { usd: number; tokens: number };
  /**
   * What its line can cost at most, in tokens (its prompt as sent and its max_tokens), recorded
   * when it is prepared: a result line that says nothing of its usage counts at it, never as free.
   */
  lineCeiling?: { inputTokens: number; outputTokens: number };
  /**
   * The custom id of the group line that carries this request (MEMORIES_PER_REQUEST > 1), recorded
   * before it is submitted: the line's result is split among the records that name it. Absent: the
   * request is its own line.
   */
  line?: string;
  /** Sent alone: its memory was in a group line that did not answer it (docs/batch-mode.md). */
  alone?: boolean;
  /**
   * Erased before its batch was accepted: `memfade forget` counted what its earlier rounds spent, so
   * a line that comes anyway (its batch's create call was in flight) counts only itself.
   */
  erasedUnsubmitted?: boolean;
  /** Given up (`interrupted`) while its line was at the provider, whose line came anyway: counted once. */
  lineCounted?: boolean;
}

/** What moving a request on sets: its new state and what it now knows. */
export type BatchRequestUpdate = Partial<BatchRequestRecord> & { state: BatchRequestState };

export type BatchState = 'submitting' | 'submitted' | 'applied';

export interface BatchRecord {
  runId: string;
  round: number;
  index: number;
  customIds: string[];
  /** `submitting` is written before the provider is called: a crash leaves it without a batchId. */
  state: BatchState;
  batchId?: string;
  submittingAt: Date;
  submittedAt?: Date;
  endedAt?: Date;
  /** Set when the run's deadline canceled the batch: what it leaves goes by BATCH_AFTER_DEADLINE. */
  canceledAt?: Date;
  failure?: string;
  /** Request lines sent, when groups make it fewer than its custom ids (MEMORIES_PER_REQUEST > 1). */
  lines?: number;
  /** `memfade forget` erased a request of it: its copies at the provider go once its results are applied. */
  eraseFiles?: boolean;
  /** When its copies at the provider were deleted (BATCH_DELETE_FILES, or forget), and what was removed. */
  filesDeletedAt?: Date;
  filesDeleted?: string[];
}
