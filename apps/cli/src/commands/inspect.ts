import { type Memory, measureLength, rawText, searchableText } from '@memfade/core';
import { openContext } from '../context.js';
import { loadConfig } from '../env.js';
import { sideBySide, table } from '../table.js';

/** One memory: raw / V1 / V2 side by side with lengths, ratio, model, prompt version, tokens, vector status, last error. */
export async function inspect(memoryId: string, options: { json: boolean }): Promise<number> {
  const context = await openContext(loadConfig(), { embedded: false });
  const { services } = context;
  try {
    const memory = (await services.models.memories.findOne({ memoryId }).lean()) as unknown as Memory | null;
    if (!memory) {
      console.error(`memfade: memory ${memoryId} not found`);
      return 1;
    }
    const [vector] = await services.vectors.get([memoryId]);
    if (options.json) {
      console.log(JSON.stringify({ memory, vector: vector && { ...vector, vector: undefined } }));
      return 0;
    }
    const raw = rawText(memory.content.raw);
    const { v1, v2, lastError, history } = memory.compression ?? { history: [] };
    console.log(
      `memory ${memoryId} (user ${memory.userId}) at ${memory.meta.compressionStage}, created ${new Date(memory.meta.createdAt).toISOString()}\n`,
    );
    const stages = [
      ['raw', raw, undefined],
      ['V1', v1?.compressedContent, v1],
      ['V2', v2?.coreMemory, v2],
    ] as const;
    console.log(
      table(
        ['stage', 'length', 'ratio', 'model', 'prompt', 'tokens in/out', 'at'],
        stages.map(([name, text, result]) => [
          name,
          text === undefined ? '-' : measureLength(text),
          result ? `${result.compressionRatio}${result.skipped ? ' (skipped: too short)' : ''}` : '-',
          result?.model ?? '-',
          result?.promptVersion ?? '-',
          result ? `${result.usage.inputTokens}/${result.usage.outputTokens}` : '-',
          result ? new Date(result.compressedAt).toISOString() : '-',
        ]),
      ),
    );
    console.log('');
    console.log(
      sideBySide(
        stages
          .filter(([, text]) => text !== undefined)
          .map(([name, text]) => ({ title: name, text: text ?? '' })),
        Math.max(process.stdout.columns ?? 120, 120),
      ),
    );
    const synced = vector?.text === searchableText(memory);
    console.log(
      `\nvector: ${vector ? `${vector.stage}, ${synced ? 'in sync' : 'behind'}` : 'none'}${memory.vectorSync?.pending ? ' (sync pending)' : ''}`,
    );
    console.log(
      `history: ${history.map((h) => `${h.stage} ${new Date(h.at).toISOString()} (${h.runId})`).join(', ') || 'none'}`,
    );
    if (lastError)
      console.log(`last error (${lastError.stage}, ${lastError.attempts} attempts): ${lastError.message}`);
    return 0;
  } finally {
    await context.close();
  }
}
