/**
 * What erasure works with (docs/design.md invariant 8): MongoDB, the vector store and, where given,
 * the compress queue and the batch side. Only these: no compressor, no embedder, no model key.
 */
import type { Exclusive, MemoryStore, StagePolicy, VectorStore } from '@memfade/core';
import type { Models } from '@memfade/db';
import type { JobRelease } from '../compress/release-jobs.js';
import type { ReceiptEntry } from './receipt.js';

export type { JobRelease };

/** What the erasure sweep needs (sweep.ts). */
export interface ErasureDeps {
  models: Models;
  store: VectorStore;
  /** discardStaleStages: a memory edited after its last stage goes back to raw. */
  memories: Pick<MemoryStore, 'discardStaleStages'>;
  policy: StagePolicy;
  now: () => Date;
  /** The vector write lock where the store needs one (LanceDB). */
  exclusive?: Exclusive;
  /**
   * Lets the next run enqueue these memories again (the service removes their finished compress
   * jobs, whose deterministic ids would otherwise hold a new one back for a day, like `memfade
   * rollback` does). Called for memories the sweep took back to raw and the ones forget cleared.
   */
  releaseJobs?: (memoryIds: string[]) => Promise<JobRelease>;
}

/** What forget needs (forget.ts): the sweep's deps and, where given, the batch side. */
export interface ForgetDeps extends ErasureDeps {
  /**
   * Settles the target's batch requests still in flight and deletes the provider's copies of their
   * batches (batch-erasure.ts), returning one receipt entry for each of BATCH_PLACES. Absent where
   * no batch record is reachable: the receipt says so.
   */
  batchErasure?: (memoryIds: string[]) => Promise<ReceiptEntry[]>;
}

/** Runs store writes under the vector write lock, when the store needs one. */
export const withLock = <T>(deps: ErasureDeps, work: () => Promise<T>) =>
  deps.exclusive ? deps.exclusive(work) : work();
