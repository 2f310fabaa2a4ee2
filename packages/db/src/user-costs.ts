import { type Usage, ZERO_USAGE } from '@memfade/core';
import { idsFilter } from './canonical.js';
import { valueAt } from './mapping.js';
import type { Models } from './models.js';
import type { MemoryEndCounts, TopUser } from './run-record.js';

/**
 * What each user costs (docs/design.md §3, `compression_user_costs`): one document per user and
 * run, written by the same RunRepository calls that add tokens and cost to the run, from the same
 * items, so a run's ledger sums to the run's tokens exactly (and its cost up to float rounding:
 * the same amounts added in another order). The user is the memory's owner, read from memfade's
 * documents by memory id (a bounded cache: a memory's owner never changes).
 */

/** The ledger of a spend whose memory is gone (erased before its paid line was read). */
export const UNKNOWN_USER = '(unknown)';
/** The ledger's line for what the run counted that no user's document got (ofRun works it out). */
export const UNATTRIBUTED_USER = '(unattributed)';

/** One paid amount (a call, a line, a stage) of one memory, as the run counts it. */
export interface UserSpend {
  memoryId?: string;
  usage: Usage;
  cost?: number;
  /** The memory's work ended with a stage written: it counts once in the user's `memories`. */
  memories?: number;
}

/** One user's ledger document for one run. */
export interface UserCost {
  runId: string;
  userId: string;
  /** The night the run computed its due memories for (the run's asOf, as a UTC date). */
  night: string;
  tokens: Usage;
  cost: number;
  memories: number;
  /** USER_NIGHT_BUDGET_USD: what the user's calls were billed plus what is reserved for calls still possible. */
  reservedUsd?: number;
  /** Memories of the user left due because their call would have passed USER_NIGHT_BUDGET_USD. */
  overBudget?: number;
}

/** A memory's end's paid amounts, as RunRepository.addMemoryEnds counts them on the run. */
export const spendsOf = (end: MemoryEndCounts): UserSpend[] => [
  ...[...(end.transitions ?? []), ...(end.discarded ?? [])].map((t) => ({ ...t, memoryId: end.memoryId })),
  ...(end.transitions?.length ? [{ memoryId: end.memoryId, usage: ZERO_USAGE, memories: 1 }] : []),
];

const OWNERS_CACHED = 50_000;
/** Users on a run's record (the ledger has them all). */
export const TOP_USERS = 10;

/**
 * Memory owners known to this process, per connection's models: learned where memfade reads the
 * memory anyway (a compress job's read, a batch chunk's), so a memory end's ledger write does not
 * read the memory's owner again (one query per memory). A memory's owner never changes.
 */
const ownerCaches = new WeakMap<Models, Map<string, string>>();

function ownerCache(models: Models): Map<string, string> {
  const known = ownerCaches.get(models);
  if (known) return known;
  const cache = new Map<string, string>();
  ownerCaches.set(models, cache);
  return cache;
}

/** Remembers a memory's owner as memfade read it (memory-store.ts), for its ledger writes. */
export function learnOwner(models: Models, memoryId: string, owner: unknown): void {
  if (owner === undefined || owner === null) return;
  const cache = ownerCache(models);
  if (cache.size >= OWNERS_CACHED) cache.clear();
  cache.set(memoryId, String(owner));
}

export class UserCosts {
  private readonly owners: Map<string, string>;
  private readonly nights = new Map<string, string>();

  constructor(private readonly models: Models) {
    this.owners = ownerCache(models);
  }

  /** The owners of these memories (memories gone are absent). */
  async ownersOf(memoryIds: string[]): Promise<Map<string, string>> {
    const missing = [...new Set(memoryIds)].filter((id) => !this.owners.has(id));
    if (missing.length) {
      const { id, userId } = this.models.mapping.mine;
      const docs = await this.models.mine.collection
        .find(idsFilter(id, missing), { projection: { [id]: 1, [userId]: 1 } })
        .toArray();
      if (this.owners.size + docs.length > OWNERS_CACHED) this.owners.clear();
      for (const doc of docs) {
        const owner = valueAt(doc, userId);
        if (owner !== undefined && owner !== null) this.owners.set(String(valueAt(doc, id)), String(owner));
      }
    }
    const found = new Map<string, string>();
    for (const memoryId of memoryIds) {
      const owner = this.owners.get(memoryId);
      if (owner !== undefined) found.set(memoryId, owner);
    }
    return found;
  }

  /** One memory's owner, or UNKNOWN_USER for a memory gone. */
  async ownerOf(memoryId: string): Promise<string> {
    return (await this.ownersOf([memoryId])).get(memoryId) ?? UNKNOWN_USER;
  }

  /**
   * USER_NIGHT_BUDGET_USD (docs/design.md invariant 14, per user): reserves `usd` on the memory's
   * owner's document of the run unless that would pass `limit`, in one conditional write, so
   * workers reserving for one user at once never pass it together. The document is created first
   * (an upsert cannot be conditional on a field of a document that may not exist yet).
   */
  async reserve(runId: string, memoryId: string, usd: number, limit: number): Promise<boolean> {
    if (usd > limit) return false;
    const userId = await this.ownerOf(memoryId);
    const night = await this.nightOf(runId);
    const docs = this.models.userCosts.collection;
    await docs.updateOne({ runId, userId }, { $setOnInsert: { night } }, { upsert: true });
    const within = { $or: [{ reservedUsd: { $exists: false } }, { reservedUsd: { $lte: limit - usd } }] };
    const result = await docs.updateOne({ runId, userId, ...within }, { $inc: { reservedUsd: usd } });
    return result.matchedCount === 1;
  }

  /** Brings a user's reservation to what its calls were billed (`change` = billed - reserved). */
  async settle(runId: string, memoryId: string, change: number): Promise<void> {
    if (change === 0) return;
    const userId = await this.ownerOf(memoryId);
    await this.models.userCosts.collection.updateOne({ runId, userId }, { $inc: { reservedUsd: change } });
  }

  /**
   * Counts a memory left due by its user's cap, on the user's document and on the run
   * (`userBudget`); true the first time for this user in the run (the run says so once per user).
   */
  async markReached(runId: string, memoryId: string, limitUsd: number): Promise<boolean> {
    const userId = await this.ownerOf(memoryId);
    const docs = this.models.userCosts.collection;
    // The user's document may not exist: a stage dearer than the cap on its own is refused before
    // `reserve` creates it, and was then counted on the run but on no user (simulate --seed 1003).
    await docs.updateOne(
      { runId, userId },
      { $setOnInsert: { night: await this.nightOf(runId) } },
      { upsert: true },
    );
    // Set where absent, else added to: of two at once, one sets it (the first), the other adds.
    const set = await docs.updateOne(
      { runId, userId, overBudget: { $exists: false } },
      { $set: { overBudget: 1 } },
    );
    const first = set.modifiedCount === 1;
    if (!first) await docs.updateOne({ runId, userId }, { $inc: { overBudget: 1 } });
    await this.models.runs.collection.updateOne(
      { runId },
      {
        $inc: { 'userBudget.overBudget': 1, ...(first && { 'userBudget.users': 1 }) },
        $set: { 'userBudget.limitUsd': limitUsd },
      },
    );
    return first;
  }

  /** The memories the cap left due in a run, and of how many users, as the users' documents count them. */
  async leftByCap(runId: string): Promise<{ memories: number; users: number }> {
    const docs = await this.models.userCosts.collection
      .find({ runId, overBudget: { $gt: 0 } }, { projection: { _id: 0, overBudget: 1 } })
      .toArray();
    return { memories: docs.reduce((n, d) => n + (d.overBudget as number), 0), users: docs.length };
  }

  /** The UTC date of the run's asOf: the night a ledger document is filed under. */
  async nightOf(runId: string): Promise<string> {
    const known = this.nights.get(runId);
    if (known) return known;
    const run = await this.models.runs.collection.findOne({ runId }, { projection: { asOf: 1 } });
    const asOf = run?.asOf instanceof Date ? run.asOf : new Date();
    const night = asOf.toISOString().slice(0, 10);
    if (this.nights.size >= 1_000) this.nights.clear();
    this.nights.set(runId, night);
    return night;
  }

  /** Adds paid amounts to their users' documents of the run: one upsert per user. */
  async add(runId: string, spends: UserSpend[]): Promise<void> {
    if (spends.length === 0) return;
    const owners = await this.ownersOf(spends.flatMap((s) => (s.memoryId ? [s.memoryId] : [])));
    const incs = new Map<string, Record<string, number>>();
    for (const spend of spends) {
      const userId = (spend.memoryId && owners.get(spend.memoryId)) || UNKNOWN_USER;
      const inc = incs.get(userId) ?? {};
      const add = (key: string, n: number | undefined) => {
        if (n) inc[key] = (inc[key] ?? 0) + n;
      };
      for (const [kind, n] of Object.entries(spend.usage)) add(`tokens.${kind}`, n);
      add('cost', spend.cost);
      add('memories', spend.memories);
      incs.set(userId, inc);
    }
    await this.write(runId, incs);
  }

  /**
   * Upserts each user's increments on the run's document, all in one command: a batch chunk's
   * results are many users' (one round trip each before).
   */
  async write(runId: string, incs: Map<string, Record<string, number>>): Promise<void> {
    const writes = [...incs].filter(([, inc]) => Object.keys(inc).length);
    if (writes.length === 0) return;
    const night = await this.nightOf(runId);
    await this.models.userCosts.collection.bulkWrite(
      writes.map(([userId, inc]) => ({
        updateOne: {
          filter: { runId, userId },
          update: { $inc: inc, $setOnInsert: { night } },
          upsert: true,
        },
      })),
      { ordered: false },
    );
  }

  /**
   * The run's ledger, dearest first; `limit` 0 = every user. What the run counted and no user's
   * document got is an UNATTRIBUTED line, worked out here as it is read, so the ledger sums to the
   * run: the run's write and the ledger's are two documents, and a worker killed between them leaves
   * the ledger short (`simulate --seed 102`). Written down at a finish instead, the line also took
   * in a call whose ledger write was still on its way, and counted it twice once that write landed
   * (`simulate --seed 323`: the ledger 2,897 tokens over its run).
   */
  async ofRun(runId: string, limit = 0): Promise<UserCost[]> {
    const docs = await this.models.userCosts.find({ runId }, { _id: 0 }).lean<UserCost[]>().exec();
    const ledger = docs.map(withDefaults);
    const gap = await this.unattributed(runId, ledger);
    if (gap) ledger.push(gap);
    ledger.sort((a, b) => b.cost - a.cost || (a.userId < b.userId ? -1 : a.userId > b.userId ? 1 : 0));
    return limit > 0 ? ledger.slice(0, limit) : ledger;
  }

  /** The UNATTRIBUTED line: what the run counted beyond its users' documents, or undefined. */
  private async unattributed(runId: string, ledger: UserCost[]): Promise<UserCost | undefined> {
    const run = await this.models.runs.collection.findOne(
      { runId },
      { projection: { tokens: 1, cost: 1, asOf: 1 } },
    );
    if (!run) return undefined;
    const tokens = { ...ZERO_USAGE };
    const stages = ['v1', 'v2'] as const;
    for (const kind of Object.keys(ZERO_USAGE) as (keyof Usage)[]) {
      const counted = stages.reduce((n, stage) => n + (run.tokens?.[stage]?.[kind] ?? 0), 0);
      tokens[kind] = Math.max(0, counted - ledger.reduce((n, doc) => n + doc.tokens[kind], 0));
    }
    const counted = stages.reduce((n, stage) => n + (run.cost?.[stage] ?? 0), 0);
    const costGap = counted - ledger.reduce((n, doc) => n + doc.cost, 0);
    // Below a millionth of a cent: the same amounts summed in another order, not a missing call.
    const cost = costGap > 1e-8 ? costGap : 0;
    if (cost === 0 && Object.values(tokens).every((n) => n === 0)) return undefined;
    const night = (run.asOf instanceof Date ? run.asOf : new Date()).toISOString().slice(0, 10);
    return { runId, userId: UNATTRIBUTED_USER, night, tokens, cost, memories: 0 };
  }

  /** Writes the run's `topUsers` (its dearest users) from its ledger; returns the whole ledger. */
  async recordTop(runId: string, top = TOP_USERS): Promise<UserCost[]> {
    const ledger = await this.ofRun(runId);
    const topUsers: TopUser[] = ledger.slice(0, top).map((doc) => ({
      userId: doc.userId,
      cost: doc.cost,
      tokens: Object.values(doc.tokens).reduce((a, b) => a + b, 0),
      memories: doc.memories,
    }));
    await this.models.runs.collection.updateOne({ runId }, { $set: { topUsers } });
    return ledger;
  }

  /** One user's documents, newest night first. */
  async ofUser(userId: string, limit: number): Promise<UserCost[]> {
    const docs = await this.models.userCosts
      .find({ userId }, { _id: 0 })
      .sort({ night: -1, runId: -1 })
      .limit(limit)
      .lean<UserCost[]>()
      .exec();
    return docs.map(withDefaults);
  }
}

const withDefaults = (doc: UserCost): UserCost => ({
  ...doc,
  tokens: { ...ZERO_USAGE, ...doc.tokens },
  cost: doc.cost ?? 0,
  memories: doc.memories ?? 0,
});
