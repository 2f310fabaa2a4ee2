import { type LastError, type MemoryStore, type StageTransition, vectorHash } from '@memfade/core';
import { F, stageResultPath } from './mapping.js';
import type { Models } from './models.js';

/** Documents written before memfade have no `rev`: they count as revision 0. */
export function revFilter(rev: number): Record<string, unknown> {
  return rev === 0 ? { $or: [{ [F.rev]: 0 }, { [F.rev]: { $exists: false } }] } : { [F.rev]: rev };
}

export class MongoMemoryStore implements MemoryStore {
  constructor(private readonly models: Models) {}

  async loadMemory(memoryId: string): Promise<Record<string, unknown> | null> {
    return this.models.memories
      .findOne({ [F.memoryId]: memoryId })
      .lean<Record<string, unknown>>()
      .exec();
  }

  async loadRoleCard(userId: string): Promise<Record<string, unknown> | null> {
    return this.models.roleCards
      .findOne({ [F.roleCardUserId]: userId })
      .lean<Record<string, unknown>>()
      .exec();
  }

  /**
   * The stage transition as ONE conditional write (DESIGN invariant 2): it applies only if the
   * memory is still at the expected stage and revision, so a stage can never be applied twice.
   * `content` is not touched: the original stays as it was.
   */
  async applyTransition(t: StageTransition): Promise<boolean> {
    const result = await this.models.memories.updateOne(
      { [F.memoryId]: t.memoryId, [F.stage]: t.expectedStage, ...revFilter(t.expectedRev) },
      {
        $set: {
          [F.stage]: t.stage,
          [F.compressedAt]: t.result.compressedAt,
          [stageResultPath(t.stage)]: t.result,
          [F.vectorSync]: { pending: true, stage: t.stage, textHash: vectorHash(t.stage, t.searchText) },
          [F.history]: t.history,
        },
        $inc: { [F.rev]: 1 },
        $unset: { [F.lastError]: '' },
      },
      { strict: false },
    );
    return result.modifiedCount === 1;
  }

  async recordError(memoryId: string, error: LastError): Promise<void> {
    try {
      await this.models.memories.updateOne(
        { [F.memoryId]: memoryId },
        { $set: { [F.lastError]: error }, $inc: { [F.rev]: 1 } },
        { strict: false },
      );
    } catch {
      // `compression` holds something that is not an object, so it cannot take a sub-field; the
      // reason must still be recorded, and the malformed field is the product's to keep.
      await this.models.memories.updateOne(
        { [F.memoryId]: memoryId },
        { $set: { [F.fallbackLastError]: error }, $inc: { [F.rev]: 1 } },
        { strict: false },
      );
    }
  }
}
