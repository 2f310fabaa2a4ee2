import { recordText } from '@memfade/app';
import { F, findMemories, valueAt } from '@memfade/db';
import type { Product } from './product.js';
import type { World } from './world.js';

/**
 * Eventual vector consistency (docs/guarantees.md), once the outbox is empty and the erasure sweep
 * has passed: every memory of the product has the vector record the drain and the sweep agree it
 * must have (recordText: its current stage's searchable text), and none where none is allowed (a
 * memory the product deleted, a forgotten user's, bad input). A memory memfade never staged has
 * none of memfade's until it is.
 */
export async function vectorFindings(
  world: World,
  product: Product,
): Promise<{ check: string; detail: string }[]> {
  const { services } = world;
  const ids = product.memories.map((m) => m.id);
  const docs = new Map(
    (await findMemories(services.models, ids)).map((doc) => [String(valueAt(doc, F.memoryId)), doc]),
  );
  const records = new Map((await services.vectors.get(ids)).map((record) => [record.id, record]));
  const findings: { check: string; detail: string }[] = [];
  const show = (text: string | undefined) =>
    text === undefined ? 'none' : JSON.stringify(text.slice(0, 80));
  for (const id of ids) {
    const doc = docs.get(id);
    const expected = doc ? recordText(doc, world.config.policy) : undefined;
    const record = records.get(id);
    // A memory memfade never took into its outbox (raw, never staged, never flagged by the sweep)
    // is the product's to embed.
    const synced =
      doc !== undefined &&
      (valueAt(doc, F.vectorHash) !== undefined || valueAt(doc, F.vectorFlag) !== undefined);
    if (record?.text === expected || (!record && !synced)) continue;
    findings.push({
      check: 'vector out of date',
      detail: `${id}: its record holds ${show(record?.text)}${record ? ` (${record.stage}, rev ${record.rev})` : ''}, the memory ${doc ? `asks for ${show(expected)}${outboxState(doc)}` : 'is gone'}`,
    });
  }
  return findings;
}

/** Where the memory stands in the outbox: tells a drain that never ran from a record lost after one. */
function outboxState(doc: Record<string, unknown>): string {
  const pending = valueAt(doc, F.vectorPending) === true;
  const flag = valueAt(doc, F.vectorFlag) === undefined ? '' : ', flagged by the sweep';
  return ` (rev ${String(valueAt(doc, F.rev))}, ${pending ? 'still in the outbox' : 'outbox cleared'}${flag})`;
}
