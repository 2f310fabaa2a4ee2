import {
  costOf,
  type Memory,
  type ModelPrice,
  searchableText,
  stageDueAt,
  stageIndex,
  type TargetStage,
} from '@memfade/core';
import type { RunRecord } from '@memfade/db';
import { type LlmEmulator, lanceTexts, redisTexts } from '@memfade/testing';
import type { Harness } from '../harness.js';

/**
 * The fault suite's end-of-night checks, which FaultRig's audit(), money() and leaks() run: every
 * memory and its vector record against what the night should have left, the provider's bill
 * against the runs' counts, and every place a forgotten text could still be kept.
 */

/** What the provider was paid and what the runs say they spent (docs/design.md invariant 9). */
export interface Money {
  /** Left out where a retry asks for a memory again by design (a sync job retried, a batch request errored). */
  requestedTwice?: number;
  billed: number;
  counted: number;
  /** Rows with a night budget: what was billed in dollars, and the budget (docs/design.md invariant 14). */
  spent?: { tokens: number; usd: number };
  budget?: { tokens: number; usd: number };
}

export interface Audit {
  memories: number;
  due: number;
  /** Due memories that did not end at the stage they were due for. */
  lost: number;
  /** Each of those: its id, the stage it ended at, the one it was due for, and its history. */
  lostDetails: string[];
  /** Memories with a stage in their history more than once, or out of order. */
  appliedTwice: number;
  /** Due memories a night's budget left where they were (each counted in its run's `budget.overBudget`). */
  leftByBudget: number;
  /** Everything else that is wrong, one line each (empty when all is well). */
  problems: string[];
}

/**
 * What the rig knows of the night that the database no longer tells: the night it ran for, every
 * memory's original content (as seeded, or as the product last edited it), the memories the
 * product deleted (as they were when deleted) and those `memfade forget` took back to raw.
 */
export interface Night {
  asOf: Date;
  originals: ReadonlyMap<string, string>;
  deleted: ReadonlyMap<string, Memory>;
  forgotten: ReadonlySet<string>;
}

/**
 * Checks every memory: its stage is allowed and the one it was due for, its history holds each
 * stage at most once and in order and ends at its stage, its original content is byte-identical,
 * its vector record holds its current stage and searchable text; a memory the product deleted
 * has no vector record; and the runs' counts add up.
 */
export async function audit(harness: Harness, night: Night, runs: RunRecord[]): Promise<Audit> {
  const { policy } = harness.config;
  const docs = (await harness.services.models.memories.find({}).lean()) as unknown as Memory[];
  const vectors = new Map(
    (await harness.services.vectors.get(docs.map((d) => d.memoryId))).map((r) => [r.id, r]),
  );
  const problems: string[] = [];
  let due = 0;
  let lost = 0;
  const lostDetails: string[] = [];
  let appliedTwice = 0;
  const applied = { v1: 0, v2: 0 };
  for (const doc of docs) {
    const id = doc.memoryId;
    const stage = doc.meta.compressionStage;
    const forgotten = night.forgotten.has(id);
    // A forgotten memory is due, and raw: forget took its stages back, the next night compresses it.
    const target = forgotten ? 'raw' : stageDueAt(new Date(doc.meta.createdAt), night.asOf, policy);
    if (stageDueAt(new Date(doc.meta.createdAt), night.asOf, policy) !== 'raw') due++;
    if (!['raw', 'v1', 'v2'].includes(stage)) problems.push(`${id}: stage '${stage}' is not allowed`);
    const history = (doc.compression?.history ?? []).map((h) => h.stage);
    if (stage !== target) {
      lost++;
      const discarded = (doc.compression as { discarded?: unknown[] } | undefined)?.discarded?.length ?? 0;
      lostDetails.push(`${id}: at ${stage}, due ${target}, history [${history}], ${discarded} discarded`);
    }
    const inOrder = history.every((s, i) => stageIndex(s) === i + 1);
    if (!inOrder) appliedTwice++;
    if ((history.at(-1) ?? 'raw') !== stage) problems.push(`${id}: history ends at ${history.at(-1)}`);
    for (const entry of doc.compression?.history ?? []) {
      if (runs.some((run) => run.runId === entry.runId)) applied[entry.stage as TargetStage]++;
    }
    if (JSON.stringify(doc.content) !== night.originals.get(id)) problems.push(`${id}: original changed`);
    if (doc.compression?.lastError) problems.push(`${id}: failed: ${doc.compression.lastError.message}`);
    const vector = vectors.get(id);
    if (forgotten) {
      if (vector) problems.push(`${id}: forgotten, but its vector record is left`);
      if (history.length) problems.push(`${id}: forgotten, but its history is left`);
    } else if (vector?.stage !== stage || vector.text !== searchableText(doc)) {
      problems.push(`${id}: vector holds ${vector ? vector.stage : 'nothing'}, memory is at ${stage}`);
    }
  }
  // Deleted memories: not lost, but their records must be gone. The run counted their jobs; its
  // stage counts come from the memories' histories when it finished, so those of memories deleted
  // before that are in no count (and in no history above).
  let deletedDue = 0;
  const leftRecords = await harness.services.vectors.get([...night.deleted.keys()]);
  for (const record of leftRecords) problems.push(`${record.id}: deleted, but its vector record is left`);
  for (const doc of night.deleted.values()) {
    if (stageDueAt(new Date(doc.meta.createdAt), night.asOf, policy) !== 'raw') deletedDue++;
  }
  const sum = (pick: (run: RunRecord) => number) => runs.reduce((total, run) => total + pick(run), 0);
  // A memory the budget stopped stays due for the next night: not lost, when its run says so (a
  // job run twice, stalled, can be refused once while its first run reaches the stage).
  const leftByBudget = Math.min(
    lost,
    sum((r) => r.budget?.overBudget ?? 0),
  );
  lost -= leftByBudget;
  const counted = { v1: sum((r) => r.counts.v1), v2: sum((r) => r.counts.v2) };
  if (counted.v1 !== applied.v1 || counted.v2 !== applied.v2) {
    problems.push(
      `runs counted ${JSON.stringify(counted)} transitions, histories hold ${JSON.stringify(applied)}`,
    );
  }
  for (const run of runs) {
    const { enqueued, processed, failed } = run.counts;
    if (processed !== enqueued) problems.push(`${run.runId}: processed ${processed} of ${enqueued} enqueued`);
    if (failed !== 0) problems.push(`${run.runId}: ${failed} failed`);
  }
  if (sum((r) => r.counts.enqueued) !== due + deletedDue) {
    problems.push(
      `runs enqueued ${sum((r) => r.counts.enqueued)} memories for ${due} due (and ${deletedDue} deleted)`,
    );
  }
  return { memories: docs.length, due, lost, lostDetails, appliedTwice, leftByBudget, problems };
}

/**
 * Money, counted the provider's way: every first request of a memory's stage the emulator
 * received (repair calls carry the reply before them, and are left out), and the tokens of every
 * successful call and processed batch line, against the tokens the runs counted. A V1 request is
 * told by its text (distinct when seeded so); a V2 one in a batch by the memory key its custom id
 * ends with, since V1 texts the emulator wrote can read alike.
 */
export function money(emulator: LlmEmulator, runs: RunRecord[]): Money {
  const firsts = new Map<string, number>();
  for (const request of emulator.requests) {
    const messages = request.body?.messages as unknown[] | undefined;
    if (request.api === 'embeddings' || !messages || messages.length !== 1) continue;
    const v2 = JSON.stringify(request.body).includes('record_v2_memory');
    const key =
      v2 && request.customId
        ? `v2 ${request.customId.split('-').at(-1)}`
        : `${v2 ? 'v2' : 'v1'} ${JSON.stringify(messages)}`;
    firsts.set(key, (firsts.get(key) ?? 0) + 1);
  }
  const requestedTwice = [...firsts.values()].filter((n) => n > 1).length;
  const { sync, batch } = emulator.billed();
  const counted = runs.reduce(
    (total, run) =>
      total +
      [run.tokens.v1, run.tokens.v2].reduce(
        (n, u) => n + u.inputTokens + u.outputTokens + u.cacheReadTokens + u.cacheWriteTokens,
        0,
      ),
    0,
  );
  return { requestedTwice, billed: sync.tokens + batch.tokens, counted };
}

/**
 * A row's tokens billed and counted, without `requestedTwice`: a sync job retried after a failed
 * call asks for its memory again, and a batch request errored or edited goes again next round,
 * and pays again, by design.
 */
export function billedAndCounted(emulator: LlmEmulator, runs: RunRecord[]): Money {
  const { requestedTwice: _, ...tokens } = money(emulator, runs);
  return tokens;
}

/** A row's money against a night budget: also what was billed in dollars at `price` (batch lines at batch prices). */
export function budgetMoney(
  emulator: LlmEmulator,
  runs: RunRecord[],
  price: ModelPrice,
  budget: { tokens: number; usd: number },
): Money {
  const tokens = billedAndCounted(emulator, runs);
  const { sync, batch } = emulator.billed();
  const usd = costOf(sync.usage, price) + costOf(batch.usage, price, { batch: true });
  return { ...tokens, budget, spent: { tokens: tokens.billed, usd } };
}

/**
 * Every place memfade could keep a copy of text, searched for each marker: its MongoDB
 * collections (the product's memories without their `content`, which is the product's), every
 * Redis key of the run's prefix, every byte under the vector store's folder (all versions), and
 * what the emulated provider still stores of batches (inputs, outputs, files). One line per hit.
 */
export async function leaks(harness: Harness, emulator: LlmEmulator, markers: string[]): Promise<string[]> {
  const hits: string[] = [];
  const look = (place: string, text: string) => {
    for (const marker of markers) if (text.includes(marker)) hits.push(`${place}: ${marker}`);
  };
  // Every collection memfade knows (the MongoDB-wire test server has no listCollections).
  const db = harness.services.mongo.db!;
  const names = new Set(Object.values(harness.config.mapping.collections));
  for (const name of names) {
    for (const doc of await db.collection(name).find({}).toArray()) {
      const { content: _productOwns, ...rest } = doc as Record<string, unknown>;
      look(`mongodb ${name} ${String(doc._id)}`, JSON.stringify(name === 'memories' ? rest : doc));
    }
  }
  const redis = harness.services.redis;
  for (const [key, text] of await redisTexts(redis, harness.config.queuePrefix)) look(`redis ${key}`, text);
  // A row searches after its night wrote vectors: no table there is a broken night, not a clean store.
  const versions = await lanceTexts(harness.config.vector.dir);
  if (!versions) throw new Error(`leaks: no memories table under ${harness.config.vector.dir}`);
  for (const [version, text] of versions) look(`vector store version ${version}`, text);
  look('provider batch files', emulator.batches.storedText());
  return hits;
}
