import { createBullBoard } from '@bull-board/api';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { ExpressAdapter } from '@bull-board/express';
import type { Operations } from '@memfade/app';
import { createMetricsExposition } from '@memfade/app';
import express, { type Express } from 'express';
import { basicAuth, bearerAuth, checkExposure, readOnlyWithoutCredentials } from './auth.js';
import { allowedHostNames, hostCheck, sameOriginChanges } from './host-check.js';
import { LoginThrottle, type ThrottleSettings } from './login-throttle.js';
import { BOARD_PATH, ERRORS_LISTED, runErrorsPage, runHistoryPage } from './run-history.js';

export interface DashboardOptions {
  /** The login throttle's timings (tests pass a clock); unset = DEFAULT_THROTTLE. */
  throttle?: Partial<ThrottleSettings>;
}

/**
 * Bull Board for every queue of the registry, behind basic auth; /healthz (Redis and MongoDB
 * reachable), /metrics (fleet Prometheus metrics: behind METRICS_TOKEN when it is set, else behind
 * basic auth like the rest), /runs (run history). Failed logins are throttled per client; requests
 * must name an allowed host, changes must come from the dashboard's own pages, and without
 * credentials nothing can be changed.
 */
export function createDashboard(operations: Operations, options: DashboardOptions = {}): Express {
  const { config, queues, runs } = operations;
  const { user, password, readOnly, metricsToken } = config.dashboard;
  checkExposure(config.dashboard);
  const credentials = Boolean(user && password);
  const throttle = new LoginThrottle(operations.logger, options.throttle);
  const app = express();
  app.disable('x-powered-by');

  // Unauthenticated on purpose (load balancers, orchestrators); it says only up or down.
  app.get('/healthz', async (_req, res) => {
    const checks = await Promise.allSettled([operations.redis.ping(), operations.mongo.db!.admin().ping()]);
    const [redis, mongodb] = checks.map((c) => (c.status === 'fulfilled' ? 'ok' : 'unreachable'));
    res.status(redis === 'ok' && mongodb === 'ok' ? 200 : 503).json({ redis, mongodb });
  });

  const exposition = createMetricsExposition({
    redis: operations.redis,
    queues,
    runs,
    queuePrefix: config.queuePrefix,
    models: operations.models,
    nightBudgetUsd: config.nightBudget.usd,
  });
  const serveMetrics = async (_req: express.Request, res: express.Response) => {
    // Answers 200 with what it could read: memfade_redis_up / memfade_mongodb_up say what is missing.
    const text = await exposition.metrics();
    res.set('content-type', exposition.contentType).send(text);
  };
  // With its own token, a scraper needs no dashboard credentials (which can retry and delete jobs).
  if (metricsToken) app.get('/metrics', bearerAuth(metricsToken, throttle), serveMetrics);

  // Above this line: /healthz, which says only up or down, and a token-guarded /metrics, which no
  // browser can be made to open; probes and scrapers reach them by any address (a pod's IP...).
  app.use(hostCheck(allowedHostNames(config.dashboard.host, config.dashboard.allowedHosts)));
  app.use(sameOriginChanges);
  if (user && password) app.use(basicAuth(user, password, throttle));
  else app.use(readOnlyWithoutCredentials);

  const board = new ExpressAdapter();
  board.setBasePath(BOARD_PATH);
  createBullBoard({
    queues: [queues.nightly, queues.compress, queues.batch].map(
      // Without credentials the board hides the actions it would refuse anyway.
      (q) => new BullMQAdapter(q, { readOnlyMode: readOnly || !credentials }),
    ),
    serverAdapter: board,
    options: { uiConfig: { boardTitle: 'memfade' } },
  });
  // Every error, from the board or from our pages, is answered with its status and nothing of the
  // error itself; the operator finds the reason in the log. (Bull Board's own handler sends the
  // message, which may quote job or request data, and under NODE_ENV=development the stack.)
  const failed = (err: Error): number => {
    const status = refusal(err);
    if (status === 500) operations.logger.error({ err }, 'dashboard request failed');
    return status;
  };
  board.setErrorHandler((err) => {
    const status = failed(err);
    // Bull Board's handler type allows 400 and 500 only: any client mistake is a 400 there.
    return status === 500
      ? { status: 500, body: { error: 'internal error' } }
      : { status: 400, body: { error: 'bad request' } };
  });
  app.use(BOARD_PATH, openFailedJobsOnTheirError, board.getRouter());

  if (!metricsToken) app.get('/metrics', serveMetrics);
  const pageOptions = { provider: config.provider.provider };
  app.get('/runs', async (_req, res) => {
    res.type('html').send(runHistoryPage(await runs.list({ limit: 30 }), pageOptions));
  });
  app.get('/runs/:runId/errors', async (req, res) => {
    const { runId } = req.params;
    const run = await runs.get(runId);
    if (!run) {
      res.status(404).type('text').send('no such run');
      return;
    }
    const [errors, total] = await Promise.all([
      runs.errors(runId, ERRORS_LISTED),
      operations.models.runErrors.countDocuments({ runId }).exec(),
    ]);
    res.type('html').send(runErrorsPage(run, errors, total));
  });
  app.get('/', (_req, res) => res.redirect('/runs'));

  // Unknown paths get a page of our own: Express's echoes the path back.
  app.use((_req, res) => {
    res.status(404).type('text').send('not found');
  });
  app.use((err: Error, _req: express.Request, res: express.Response, _next: express.NextFunction) => {
    const status = failed(err);
    res
      .status(status)
      .type('text')
      .send(status === 500 ? 'internal error' : 'bad request');
  });
  return app;
}

/**
 * Bull Board opens a job on the tab its settings name, "Data" unless the user chose another: a
 * failed job would open on its payload, its error a click away. Its "Default" setting opens a
 * failed job on "Error" (and any other on "Data"), so the board's page sets that in the browser's
 * stored board settings unless the user chose something other than Bull Board's own default.
 */
const ERROR_TAB_SCRIPT = `<script>try{var k='board-settings',s=JSON.parse(localStorage.getItem(k)||'null');
if(!s||!s.state){s={state:{},version:0}}
if(!s.state.defaultJobTab||s.state.defaultJobTab==='Data'){s.state.defaultJobTab='default';localStorage.setItem(k,JSON.stringify(s))}}catch(e){}</script>`;

function openFailedJobsOnTheirError(
  _req: express.Request,
  res: express.Response,
  next: express.NextFunction,
) {
  const send = res.send.bind(res);
  res.send = (body?: unknown) =>
    send(
      typeof body === 'string' && body.includes('</head>')
        ? body.replace('</head>', `${ERROR_TAB_SCRIPT}</head>`)
        : body,
    );
  next();
}

/** A client's mistake (a body that is not JSON...) keeps its 4xx status; anything else is a 500. */
function refusal(err: Error): number {
  const { statusCode, status: code } = err as { statusCode?: unknown; status?: unknown };
  const status = Number(statusCode ?? code);
  return status >= 400 && status < 500 ? status : 500;
}
