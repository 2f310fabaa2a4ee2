import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { enqueueRun, startWorkerRole, waitForRun } from '@memfade/app';
import type { Harness } from './harness.js';

/** A night through the workers, then the outbox drained: every memory has its record. */
export async function night(harness: Harness, runId: string, asOf: Date): Promise<void> {
  const workers = startWorkerRole(harness.services);
  await waitForRun(harness.services, await enqueueRun(harness.services, { runId, trigger: 'manual', asOf }), {
    timeoutMs: 60_000,
  });
  await workers.close();
  await harness.services.vectorSync.drain();
}

/** Which of these texts some file under the folder still holds (every version's files are there). */
export async function textsInFolder(folder: string, texts: string[]): Promise<string[]> {
  const entries = await readdir(folder, { recursive: true, withFileTypes: true });
  const files = entries.filter((e) => e.isFile()).map((e) => join(e.parentPath, e.name));
  const bytes = await Promise.all(files.map((file) => readFile(file)));
  return texts.filter((text) => bytes.some((b) => b.includes(Buffer.from(text))));
}

/** When the sweep's history purge was owed since (sweep-cursor.ts), undefined when nothing is owed. */
export async function purgeOwedAt(harness: Harness): Promise<unknown> {
  const state = await harness.services.models.state.collection.findOne({ _id: 'erasure-sweep' } as never);
  return state?.purgeOwedAt;
}

/** Raw copies of one of a user's memories under these ids, each with its vector record (the outbox drained). */
export async function insertRawCopies(harness: Harness, ids: string[], userId = 'demo-en-2'): Promise<void> {
  const { services } = harness;
  const [source] = await services.models.memories.collection.find({ userId }).limit(1).toArray();
  const { _id, compression: _stages, ...doc } = source!;
  for (const id of ids)
    await services.models.memories.collection.insertOne({
      ...doc,
      memoryId: id,
      rev: 0,
      meta: { ...doc.meta, compressionStage: 'raw' },
      vectorSync: { pending: true },
    });
  await services.vectorSync.drain();
}
