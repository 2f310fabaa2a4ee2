import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { MemfadeConfig } from '@memfade/app';
import { childEnv, type LlmEmulator } from '@memfade/testing';

// The built file, from src/ (the tests) as from dist/ (pnpm bench).
const CHILD = fileURLToPath(new URL('../dist/floor-child.js', import.meta.url));

export interface FloorSettings {
  redisUrl: string;
  mongodbUri: string;
  emulatorUrl: string;
  /** Database and queue prefix of this measurement alone. */
  tag: string;
  concurrency: number;
  /** Calls of each kind measured (after as many warm-up calls). */
  calls: number;
}

/** CPU ms in the calling process, per call, at `concurrency` calls in flight. */
export interface FloorResult {
  concurrency: number;
  /** One MongoDB read through memfade's store (the driver's round trip; a job makes three). */
  mongoRoundTripMs: number;
  /** One V1 call through memfade's Anthropic compressor: the SDK, the prompt, the reply's validation. */
  modelCallMs: number;
  /** One BullMQ job with memfade's job options and an empty processor. */
  queueJobMs: number;
  /** What a compress job cannot cost less than: three round trips, one model call, one job. */
  perMemoryMs: number;
}

/**
 * The worker's CPU floor: the libraries every compress job goes through, each measured alone in
 * a child process. The end-to-end worker CPU minus this is what memfade's own code, the event
 * loop's interleaving of many jobs and the garbage collector add on top.
 */
export async function benchmarkFloor(
  config: MemfadeConfig,
  emulator: LlmEmulator,
  options: { concurrency: number; calls: number },
): Promise<FloorResult> {
  const settings: FloorSettings = {
    redisUrl: config.redisUrl!,
    mongodbUri: config.mongodbUri!,
    emulatorUrl: emulator.url,
    tag: `floor-${Date.now().toString(36)}`,
    ...options,
  };
  emulator.setRule(undefined);
  const child = spawn(process.execPath, [CHILD, JSON.stringify(settings)], {
    stdio: ['ignore', 'pipe', 'inherit'],
    env: childEnv({}),
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  if (code !== 0) throw new Error(`the floor measurement exited with ${code}`);
  return JSON.parse(output) as FloorResult;
}
