import { openOperations } from '@memfade/app';
import { createLogger, ShutdownManager } from '@memfade/runtime';
import { createDashboard } from './app.js';
import { loadConfig } from './env.js';

async function main(): Promise<void> {
  const config = loadConfig();
  const logger = createLogger({ level: config.logLevel, service: 'memfade-dashboard' });
  const operations = await openOperations(config, { logger });
  const app = createDashboard(operations);
  const server = app.listen(config.dashboard.port, config.dashboard.host);
  await new Promise<void>((resolve, reject) => server.once('listening', resolve).once('error', reject));
  const shutdown = new ShutdownManager(logger, config.shutdownGraceMs);
  shutdown
    .add('stop serving', () => new Promise((resolve) => server.close(resolve)))
    .add('disconnect', () => operations.close());
  shutdown.listen();
  const { host, port, allowedHosts, user, password } = config.dashboard;
  // Says which Host names it answers to and whether it can change anything: the two refusals an
  // operator may meet first (421 for another name, 403 for a change without credentials).
  logger.info(
    { host, port, allowedHosts, readOnly: config.dashboard.readOnly || !(user && password) },
    'memfade dashboard listening',
  );
}

try {
  await main();
} catch (error) {
  console.error(`memfade-dashboard: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(2);
}
