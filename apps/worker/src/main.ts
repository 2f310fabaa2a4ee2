import { createServices, startSchedulerRole, startTracing, startWorkerRole } from '@memfade/app';
import { createLogger, ShutdownManager } from '@memfade/runtime';
import { loadConfig } from './env.js';
import { startHeartbeat } from './heartbeat.js';

/** Boot: env -> services -> workers (+ the cron scheduler) -> graceful shutdown on SIGTERM/SIGINT. */
async function main(): Promise<void> {
  const config = loadConfig();
  const logger = createLogger({ level: config.logLevel, service: 'memfade-worker' });
  // OpenTelemetry traces, only when OTEL_EXPORTER_OTLP_ENDPOINT is set: before any queue or worker opens.
  const tracing = await startTracing({ traces: config.traces });
  // A worker outlives Redis restarts, start-up included: it waits (and says so) instead of exiting.
  const services = await createServices(config, { logger, waitForRedis: true });
  const shutdown = new ShutdownManager(logger, config.shutdownGraceMs);
  const scheduler = config.schedule.enabled ? await startSchedulerRole(services) : undefined;
  const workers = startWorkerRole(services);
  const heartbeat = config.heartbeatFile
    ? startHeartbeat(
        config.heartbeatFile,
        async () => workers.compress.isRunning() && (await services.redis.ping()) === 'PONG',
        logger,
      )
    : undefined;
  shutdown
    .add('stop the heartbeat', async () => heartbeat?.stop())
    .add('stop scheduling', async () => scheduler?.stop())
    .add('close workers', () => workers.close())
    .add('disconnect', () => services.close())
    .add('flush traces', async () => tracing?.shutdown());
  shutdown.listen();
  logger.info(
    {
      concurrency: config.concurrency,
      schedule: config.schedule,
      provider: config.provider.provider,
      traces: tracing !== undefined,
    },
    'memfade worker started',
  );
}

try {
  await main();
} catch (error) {
  // A configuration or connection problem: one clear line, not a stack trace.
  console.error(`memfade-worker: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(2);
}
