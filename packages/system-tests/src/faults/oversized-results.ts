import type { RunRecord } from '@memfade/db';
import type { FaultRig, WorkerProcess } from './fault-rig.js';

/**
 * A batch night whose results files are far bigger than the worker's heap (issue 25: "results
 * applied in bounded memory", docs/design.md §6: results are streamed a chunk at a time). The
 * emulator pads every result line with filler in a property nobody reads (BatchControls.linePadding),
 * streamed without ever being held; the worker runs with a small V8 heap. A worker that held the
 * file, or too many lines of it, would run out of memory on every attempt and the night would
 * never finish.
 */

/**
 * The workers' V8 heap, in MB. A normal batch night of the fault suite's 264 memories runs with
 * 48 MB and runs out at 44 MB (measured with unpadded results); 64 leaves room for a loaded machine.
 */
export const SMALL_HEAP_MB = 64;

/**
 * Filler per result line: round 0's single results file (about 144 lines) is then over 200 MB,
 * more than 3 times the heap, and the night's files together over 300 MB.
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

export interface OversizedNight {
  runs: RunRecord[];
  worker: WorkerProcess;
  /** Bytes of the largest results file the emulator served, and of all of them. */
  largest: number;
  total: number;
}

/**
 * Runs tonight on one worker with SMALL_HEAP_MB of heap, `batch` its batch-mode settings, every
 * round's requests in one batch (the provider's limit, BATCH_MAX_REQUESTS=0) and results applied
 * BATCH_CHUNK=100 at a time (the defaults), so one results file holds a whole round.
 */
export async function oversizedResultsNight(
  r: FaultRig,
  provider: Provider,
  batch: Record<string, string>,
): Promise<OversizedNight> {
  r.emulator.batches.linePadding = LINE_PADDING;
  const worker = r.startWorker({
    ...batch,
    ...providerEnv(r, provider),
    BATCH_MAX_REQUESTS: '0',
    BATCH_CHUNK: '100',
    NODE_OPTIONS: `--max-old-space-size=${SMALL_HEAP_MB}`,
  });
  const runId = await r.runNight();
  const runs = await r.settle([runId]);
  return { runs, worker, ...r.emulator.batches.resultBytes };
}
