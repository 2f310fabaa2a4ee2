import { stat, writeFile } from 'node:fs/promises';
import type { Logger } from '@memfade/runtime';

/** How often a live worker rewrites its heartbeat file. */
export const HEARTBEAT_MS = 5_000;
/** A heartbeat older than this means the worker missed two beats in a row: call it unhealthy. */
export const HEARTBEAT_STALE_MS = 3 * HEARTBEAT_MS;

/**
 * The worker's liveness for a container health check (infra/compose.yaml): a worker listens on no
 * port, so it proves itself by rewriting a file while `alive()` holds (its BullMQ workers run and
 * Redis answers it). A hung event loop, a lost Redis or a stopped worker all leave the file
 * to age; `healthcheck.js` reads its age. The next beat waits for the previous check, so a PING
 * that hangs while Redis is away stops the beats instead of piling them up.
 */
export function startHeartbeat(
  file: string,
  alive: () => Promise<boolean>,
  logger: Logger,
): { stop: () => void } {
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  const beat = async () => {
    try {
      if (await alive()) await writeFile(file, `${new Date().toISOString()}\n`);
    } catch (err) {
      logger.warn({ err, file }, 'no heartbeat written');
    }
    if (!stopped) timer = setTimeout(beat, HEARTBEAT_MS).unref();
  };
  void beat();
  return {
    stop: () => {
      stopped = true;
      clearTimeout(timer);
    },
  };
}

/** Whether the heartbeat file was rewritten within HEARTBEAT_STALE_MS (false when it is missing). */
export async function heartbeatFresh(file: string, now = Date.now()): Promise<boolean> {
  try {
    return now - (await stat(file)).mtimeMs <= HEARTBEAT_STALE_MS;
  } catch {
    return false;
  }
}
