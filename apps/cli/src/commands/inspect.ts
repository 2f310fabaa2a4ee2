import { findMemory } from '@memfade/app';
import { type Memory, measureLength, rawText, searchableText, vectorHash } from '@memfade/core';
import { withOperations } from '../context.js';
import { sideBySide, table, terminalWidth } from '../table.js';

/** One memory: raw / V1 / V2 side by side with lengths, ratio, model, prompt version, tokens, vector status, last error. */
export async function inspect(memoryId: string, options: { json: boolean }): Promise<number> {
  return withOperations(async (services) => {
    const memory = (await findMemory(services.models, memoryId)) as unknown as Memory | null;
    if (!memory) {
      console.error(`memfade: memory ${memoryId} not found`);
      return 1;
    }
    if (options.json) {
      console.log(JSON.stringify({ memory }));
      return 0;
    }
    const raw = rawText(memory.content.raw);
    // A memory that failed before its first stage has compression.lastError and nothing else.
    const { v1, v2, lastError, history = [] } = memory.compression ?? {};
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
        // A stage the product wrote itself (the reference design's shape) may lack any of these.
        stages.map(([name, text, result]) => [
          name,
          typeof text === 'string' ? measureLength(text) : '-',
          result?.compressionRatio !== undefined
            ? `${result.compressionRatio}${result.skipped ? ' (skipped: too short)' : ''}`
            : '-',
          result?.model ?? '-',
          result?.promptVersion ?? '-',
          result?.usage ? `${result.usage.inputTokens}/${result.usage.outputTokens}` : '-',
          isoOrDash(result?.compressedAt),
        ]),
      ),
    );
    console.log('');
    console.log(
      sideBySide(
        stages
          .filter(([, text]) => typeof text === 'string')
          .map(([name, text]) => ({ title: name, text: text ?? '' })),
        terminalWidth() ?? 120,
      ),
    );
    console.log(`\nvector: ${vectorStatus(memory)}`);
    console.log(
      `history: ${history.map((h) => `${h.stage} ${isoOrDash(h.at)} (${h.runId})`).join(', ') || 'none'}`,
    );
    // What the gates accepted with a warning (a length out of range, the retention gate's shortfall).
    for (const [name, result] of [
      ['V1', v1],
      ['V2', v2],
    ] as const)
      for (const warning of Array.isArray(result?.warnings) ? result.warnings : [])
        console.log(`${name} warning: ${warning}`);
    if (lastError)
      console.log(`last error (${lastError.stage}, ${lastError.attempts} attempts): ${lastError.message}`);
    return 0;
  });
}

/**
 * The vector outbox's view of the memory (the workers' vector sync writes the store): in sync
 * when the last record written holds the memory's current stage and searchable text.
 */
function vectorStatus(memory: Memory): string {
  const sync = memory.vectorSync;
  if (!sync) return 'none';
  const stage = memory.meta.compressionStage;
  if (sync.pending) return `${sync.stage}, sync pending (the worker's vector sync writes it)`;
  const synced = sync.stage === stage && sync.textHash === vectorHash(stage, searchableText(memory));
  return `${sync.stage}, ${synced ? 'in sync' : 'behind'}`;
}

/** A date as ISO 8601, or '-' when it is missing or not a date (a stage written by other code). */
function isoOrDash(at: unknown): string {
  const date =
    at instanceof Date || typeof at === 'string' || typeof at === 'number' ? new Date(at) : undefined;
  return date && !Number.isNaN(date.getTime()) ? date.toISOString() : '-';
}
