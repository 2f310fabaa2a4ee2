import type { RunRecord } from '@memfade/db';
import type { FaultRig, WorkerProcess } from './fault-rig.js';

/**
 * Batch nights whose results files, or one line of them, are far bigger than the worker's heap
 * (issue 25: "results applied in bounded memory", docs/design.md §6: results are streamed a chunk at
 * a time). The emulator pads result lines with filler in a property nobody reads
 * (BatchControls.linePadding), streamed without ever being held; the worker runs with a small V8
 * heap. A worker that held the file, too many lines of it, or one line larger than its heap, would
 * run out of memory on every attempt, and every result after that point would wait for it.
 */

/**
 * The workers' V8 heap, in MB. A normal batch night of the fault suite's 264 memories runs with
 * 48 MB and runs out at 44 MB (measured with unpadded results); 64 leaves room for a loaded machine.
 */
export const SMALL_HEAP_MB = 64;

/**
 * Filler per result line of round 0 (the custom id's round, batchCustomId): the round's single
 * results file (144 lines) is then over 200 MB, more than 3 times the heap. Later rounds' lines
 * (V2 after V1) are left as they are: the row's time goes to the file that proves the point.
 */
export const LINE_PADDING = 1_500_000;

export type Provider = 'anthropic' | 'openai';

/** The worker's settings for `provider`: the emulator behind either SDK (the rig's default is Anthropic). */
function providerEnv(r: FaultRig, provider: Provider): Record<string, string> {
  if (provider === 'anthropic') return {};
  return {
    MEMFADE_PROVIDER: 'openai',
    OPENAI_API_KEY: 'sk-fault-suite',
    OPENAI_BASE_URL: `${r.emulator.url}/v1`,
  };
}

/** The one line of `oneLineOverTheHeap`: 4 times the heap, and far over MAX_RESULT_LINE_BYTES. */
export const HUGE_LINE_PADDING = 4 * SMALL_HEAP_MB * 2 ** 20;

export interface OversizedNight {
  runs: RunRecord[];
  worker: WorkerProcess;
  /** Bytes of the largest results file the emulator served, and of all of them. */
  largest: number;
  total: number;
}

/** Tonight with every result line of round 0 LINE_PADDING bytes longer (smallHeapNight). */
export async function oversizedResultsNight(
  r: FaultRig,
  provider: Provider,
  batch: Record<string, string>,
): Promise<OversizedNight> {
  r.emulator.batches.linePadding = (customId) => (customId.split('-')[1] === '0' ? LINE_PADDING : 0);
  return smallHeapNight(r, provider, batch);
}

/**
 * The same night, every line as the provider writes it but one: the first line of the first results
 * file served is HUGE_LINE_PADDING bytes longer, each time it is read. Returns its custom id too.
 */
export async function oneLineOverTheHeap(
  r: FaultRig,
  batch: Record<string, string>,
): Promise<OversizedNight & { hugeLine: string }> {
  let huge: string | undefined;
  r.emulator.batches.linePadding = (customId) => {
    huge ??= customId;
    return customId === huge ? HUGE_LINE_PADDING : 0;
  };
  const night = await smallHeapNight(r, 'anthropic', batch);
  return { ...night, hugeLine: huge! };
}

/**
 * Runs tonight on one worker with SMALL_HEAP_MB of heap, `batch` its batch-mode settings, every
 * round's requests in one batch (the provider's limit, BATCH_MAX_REQUESTS=0) and results applied
 * BATCH_CHUNK=100 at a time (the defaults), so one results file holds a whole round.
 */
async function smallHeapNight(
  r: FaultRig,
  provider: Provider,
  batch: Record<string, string>,
): Promise<OversizedNight> {
  const worker = r.startWorker({
    ...batch,
    ...providerEnv(r, provider),
    BATCH_MAX_REQUESTS: '0',
    BATCH_CHUNK: '100',
    NODE_OPTIONS: `--max-old-space-size=${SMALL_HEAP_MB}`,
    // The rig's 2 s lock brings a killed worker's jobs back fast; nobody is killed here, and on a
    // loaded 2-core host a 64 MB heap's collections can hold the poll job's lock renewal past 2 s
    // (the job is then taken as stalled and run again: a different row). The production default is 30 s.
    JOB_LOCK_MS: '15000',
  });
  const runId = await r.runNight();
  const runs = await r.settle([runId]);
  return { runs, worker, ...r.emulator.batches.resultBytes };
}

/** The tokens the emulated Anthropic billed for one result line: all four counts, as billed() adds them. */
export function billedLineTokens(r: FaultRig, customId: string): number {
  for (const text of r.emulator.batches.storedText().split('\n')) {
    if (!text.startsWith(`{"custom_id":"${customId}"`)) continue;
    const usage: Record<string, number> = JSON.parse(text).result?.message?.usage ?? {};
    const counts = [
      'input_tokens',
      'output_tokens',
      'cache_creation_input_tokens',
      'cache_read_input_tokens',
    ];
    return counts.reduce((sum, key) => sum + (usage[key] ?? 0), 0);
  }
  throw new Error(`the provider holds no result line ${customId}`);
}
