import type { ForgetTarget } from '@memfade/db';
import type { ForgetDeps } from './deps.js';
import { type ForgetReport, forget } from './forget.js';

/**
 * The door of erasure (docs/design.md invariant 8): `memfade forget` and whoever else erases a memory
 * or a user goes through here. It holds only what erasure touches (ForgetDeps): MongoDB, the vector
 * store, the compress queue, batch records and, asked for only when a batch at the provider holds
 * the target, the provider's batch client. No compressor and no embedder: forget needs no model key.
 */
export class Erasure {
  constructor(
    private readonly deps: ForgetDeps & {
      /**
       * Where a vector syncer runs in the same process (a worker's services), forget takes its turn
       * behind the syncer's drains and sweeps (VectorSyncer.queued), so they never overlap.
       */
      turn?: <T>(work: () => Promise<T>) => Promise<T>;
    },
  ) {}

  /** Removes one memory's or one user's derived data from every place, then looks again (forget.ts). */
  forget(target: ForgetTarget, options: { dryRun: boolean; allowUnknown?: boolean }): Promise<ForgetReport> {
    const work = () => forget(this.deps, target, options);
    return this.deps.turn ? this.deps.turn(work) : work();
  }
}
