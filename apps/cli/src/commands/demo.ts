import { enqueueRun, importMemories, stageCounts, startWorkerRole, waitForRun } from '@memfade/app';
import type { Memory } from '@memfade/core';
import { measureLength } from '@memfade/core';
import { generateDemoData } from '@memfade/samples';
import { withDemoContext } from '../context.js';
import { progressReporter } from '../progress.js';
import { printRunSummary } from '../run-output.js';
import { chars, sideBySide, table, terminalWidth } from '../table.js';

export interface DemoOptions {
  users: number;
}

/** The main job on embedded defaults: synthetic users, one nightly cycle now, a summary. */
export async function demo(options: DemoOptions): Promise<void> {
  await withDemoContext(async (context) => {
    const { services } = context;
    for (const line of context.embedded) console.log(`started ${line}`);
    const now = services.now();
    const data = generateDemoData({ now, users: options.users });
    await importMemories(services, data.memories, data.roleCards);
    const before = await stageCounts(services);
    console.log(
      `\n${data.roleCards.length} users, ${data.memories.length} memories aged 0..10 days (zh + en)\n`,
    );
    const workers = startWorkerRole(services);
    const runId = await enqueueRun(services, { trigger: 'demo', asOf: now });
    const progress = progressReporter();
    const run = await waitForRun(services, runId, { onProgress: progress.update });
    progress.done();
    // Closing the workers also flushes the vector outbox into the demo's store.
    await workers.close();
    const after = await stageCounts(services);
    console.log(
      table(
        ['stage', 'before', 'after'],
        (['raw', 'v1', 'v2'] as const).map((s) => [s, before[s], after[s]]),
      ),
    );
    console.log('');
    printRunSummary(run);
    for (const language of ['zh', 'en'] as const) {
      // A memory the offline compressor took through both stages (not a greeting carried as it was).
      const memory = (await services.models.memories
        .findOne({
          'meta.compressionStage': 'v2',
          'compression.v2.skipped': { $exists: false },
          userId: new RegExp(`^demo-${language}-`),
        })
        .lean()) as unknown as Memory | null;
      if (!memory) continue;
      const raw = Array.isArray(memory.content.raw)
        ? memory.content.raw.map((t) => `${t.role}: ${t.text}`).join('\n')
        : memory.content.raw;
      const v1 = memory.compression?.v1?.compressedContent ?? '';
      const v2 = memory.compression?.v2?.coreMemory ?? '';
      const residue = memory.compression?.v2?.emotionalResidue;
      console.log(`\n${language === 'zh' ? 'Chinese' : 'English'} memory ${memory.memoryId}:`);
      console.log(
        sideBySide(
          [
            { title: `RAW (${chars(raw)})`, text: raw },
            { title: `V1 (${chars(v1)}, ${ratio(v1, raw)})`, text: v1 },
            { title: `V2 (${chars(v2)}, ${ratio(v2, raw)})`, text: v2 },
          ],
          terminalWidth() ?? 120,
        ),
      );
      // What the memory felt like, for the user (docs/design.md §6), and what V1 found most telling.
      if (residue?.dominantEmotion)
        console.log(`\nV2 residue: ${residue.dominantEmotion} (${residue.intensity}): ${residue.summary}`);
      for (const point of memory.compression?.v1?.keyPoints.slice(0, 3) ?? [])
        console.log(`V1 key point: ${point}`);
    }
  });
}

function ratio(text: string, of: string): string {
  return `${Math.round((measureLength(text) / measureLength(of)) * 100)}% of raw`;
}
