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
