import { createBullBoard } from '@bull-board/api';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { ExpressAdapter } from '@bull-board/express';
import { FleetMetrics, type Operations } from '@memfade/service';
import express, { type Express } from 'express';
import { basicAuth, checkExposure } from './auth.js';
import { runHistoryPage } from './run-history.js';

/**
 * Bull Board for every queue of the registry, behind basic auth; /healthz (Redis and MongoDB
 * reachable), /metrics (fleet Prometheus metrics), /runs (run history).
 */
export function createDashboard(operations: Operations): Express {
  const { config, queues, runs } = operations;
  const { user, password, readOnly } = config.dashboard;
  checkExposure(config.dashboard);
  const app = express();
  app.disable('x-powered-by');

  // Unauthenticated on purpose (load balancers, orchestrators); it says only up or down.
  app.get('/healthz', async (_req, res) => {
    const checks = await Promise.allSettled([operations.redis.ping(), operations.mongo.db!.admin().ping()]);
    const [redis, mongodb] = checks.map((c) => (c.status === 'fulfilled' ? 'ok' : 'unreachable'));
    res.status(redis === 'ok' && mongodb === 'ok' ? 200 : 503).json({ redis, mongodb });
  });

  if (user && password) app.use(basicAuth(user, password));

  const board = new ExpressAdapter();
  board.setBasePath('/queues');
  createBullBoard({
    queues: [queues.nightly, queues.compress].map((q) => new BullMQAdapter(q, { readOnlyMode: readOnly })),
    serverAdapter: board,
    options: { uiConfig: { boardTitle: 'memfade' } },
  });
  app.use('/queues', board.getRouter());

  const metrics = new FleetMetrics(operations.redis, config.queuePrefix);
  app.get('/metrics', async (_req, res) => {
    res.type('text/plain; version=0.0.4').send(await metrics.render(queues));
  });
  app.get('/runs', async (_req, res) => {
    res.type('html').send(runHistoryPage(await runs.list({ limit: 30 })));
  });
  app.get('/', (_req, res) => res.redirect('/runs'));

  // Errors never echo request or queue data back.
  app.use((err: Error, _req: express.Request, res: express.Response, _next: express.NextFunction) => {
    operations.logger.error({ err }, 'dashboard request failed');
    res.status(500).type('text').send('internal error');
  });
  return app;
}
