import { loadConfig } from './env.js';
import { heartbeatFresh } from './heartbeat.js';

/**
 * The worker container's health check (infra/compose.yaml): exits 0 while the worker's heartbeat
 * file is fresh, 1 otherwise. It connects to nothing: the worker itself checks Redis before each beat.
 */
try {
  const file = loadConfig().heartbeatFile;
  if (!file) throw new Error('WORKER_HEARTBEAT_FILE is not set, so the worker writes no heartbeat');
  if (!(await heartbeatFresh(file))) throw new Error(`no fresh heartbeat in ${file}`);
} catch (error) {
  console.error(`memfade-worker healthcheck: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
}
