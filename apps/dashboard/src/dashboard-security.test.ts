import { type IncomingHttpHeaders, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  configFromEnv,
  enqueueRun,
  envSchema,
  type MemfadeConfig,
  openOperations,
  startWorkerRole,
  waitForRun,
} from '@memfade/app';
import { insertMemories, memoryDocument } from '@memfade/db';
import { createLogger, parseEnv } from '@memfade/runtime';
import { type Harness, startHarness } from '@memfade/system-tests';
import type { Express } from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDashboard } from './app.js';

const NOW = new Date('2026-11-22T03:00:00Z');
const CREDENTIALS = { user: 'ops', password: 'Tr0ub4dor-and-3-horses' };
const auth = (value: string) => `Basic ${Buffer.from(value).toString('base64')}`;
const OK = { authorization: auth(`${CREDENTIALS.user}:${CREDENTIALS.password}`) };
const MARKER = 'DASHBOARD-PRIVATE-MARKER-5521';

interface Reply {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

/** node:http rather than fetch: it sends any Host header, and from any local address (another client). */
function send(
  url: string,
  options: { method?: string; headers?: Record<string, string>; localAddress?: string } = {},
): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = request(url, {
      method: options.method ?? 'GET',
      headers: options.headers,
      localAddress: options.localAddress,
    });
    req.on('response', (response) => {
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => {
        body += chunk;
      });
      response.on('end', () => resolve({ status: response.statusCode!, headers: response.headers, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

async function serve(app: Express): Promise<{ url: string; port: number; close: () => Promise<void> }> {
  const server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** What must never be in a refusal or an error page: queue names, job ids, memory text, stack frames. */
function expectNothingLeaked(body: string, memoryIds: string[]): void {
  expect(body).not.toContain('memfade-compress');
  expect(body).not.toContain('memfade-nightly');
  expect(body).not.toContain(MARKER);
  for (const id of memoryIds) expect(body).not.toContain(id);
  expect(body).not.toMatch(/\bat .*\.(js|ts|mjs|cjs):\d+/);
  expect(body).not.toContain(CREDENTIALS.password);
}

describe('dashboard refusals and error pages', () => {
  let harness: Harness;
  let server: Server;
  let base: string;
  let memoryIds: string[];
  let failedJobId: string;
  const nodeEnv = process.env.NODE_ENV;

  beforeAll(async () => {
    // The worst case for error pages: Bull Board and Express show stack traces in development.
    process.env.NODE_ENV = 'development';
    harness = await startHarness({ now: NOW });
    harness.services.config.dashboard = { host: '127.0.0.1', port: 0, ...CREDENTIALS, readOnly: false };
    const created = new Date(NOW.getTime() - 4 * 86_400_000);
    const text = `We talked about the garden and the code word ${MARKER}; she planted tomatoes and basil and felt proud of it.`;
    const docs = ['with-card', 'without-card'].map((user, i) =>
      memoryDocument({
        memoryId: `dash-${i}`,
        userId: user,
        partnerId: 'companion',
        turns: [
          { role: 'user', text },
          { role: 'assistant', text: 'That sounds lovely. What will you plant next spring in the garden?' },
        ],
        createdAt: created,
      }),
    );
    memoryIds = docs.map((d) => String(d.memoryId));
    // The second memory has no role card: its job fails, so the queue holds a failed reason too.
    await insertMemories(harness.services.models, docs, [
      { userId: 'with-card', name: 'Sam', language: 'en' },
    ]);
    const workers = startWorkerRole(harness.services);
    await waitForRun(harness.services, await enqueueRun(harness.services, { trigger: 'manual', asOf: NOW }), {
      timeoutMs: 30_000,
    });
    await workers.close();
    const [failed] = await harness.services.queues.compress.getJobs(['failed']);
    failedJobId = failed!.id!;
    // This server lets the refusal tests guess freely; the throttle has its own test below.
    server = createDashboard(harness.services, { throttle: { freeFailures: 1_000 } }).listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    process.env.NODE_ENV = nodeEnv;
    await new Promise((resolve) => server?.close(resolve));
    await harness?.close();
  });

  it('refuses missing, wrong and malformed credentials on every protected path, saying nothing else', async () => {
    const paths = [
      ['GET', '/'],
      ['GET', '/queues'],
      ['GET', '/queues/queue/memfade-compress'],
      ['GET', '/queues/api/queues?activeQueue=memfade-compress&status=failed'],
      ['GET', `/queues/api/queues/memfade-compress/${failedJobId}`],
      ['GET', '/queues/api/redis/stats'],
      ['PUT', '/queues/api/queues/memfade-compress/retry/failed'],
      ['GET', '/runs'],
      ['GET', '/metrics'],
      ['GET', '/no-such-page'],
    ];
    const refused = [
      {},
      { authorization: auth(`${CREDENTIALS.user}:wrong`) },
      { authorization: auth(`admin:${CREDENTIALS.password}`) },
      { authorization: auth(`${CREDENTIALS.user}:${CREDENTIALS.password} `) },
      { authorization: auth(CREDENTIALS.user) },
      { authorization: 'Basic !!!not-base64' },
      { authorization: `Bearer ${CREDENTIALS.password}` },
    ];
    for (const [method, path] of paths) {
      for (const headers of refused) {
        const response = await fetch(`${base}${path}`, { method, headers });
        const body = await response.text();
        expect(response.status, `${method} ${path} ${JSON.stringify(headers)}`).toBe(401);
        expect(response.headers.get('www-authenticate')).toMatch(/^Basic realm="memfade"/);
        expect(body).toBe('authentication required');
        expectNothingLeaked(body, memoryIds);
      }
    }
    // The refused retry did nothing.
    expect(await harness.services.queues.compress.getJobCounts('failed')).toEqual({ failed: 1 });
  });

  it('answers unknown pages and unknown board routes without echoing the request or showing queue data', async () => {
    const cases: [string, number][] = [
      [`/no-such-page-${MARKER}`, 404],
      [`/queues/api/no-such-route-${MARKER}`, 404],
      [`/queues/api/queues/no-such-queue/${MARKER}`, 404],
      [`/queues/api/queues/memfade-compress/no-such-job-${MARKER}`, 404],
    ];
    for (const [path, status] of cases) {
      const response = await fetch(`${base}${path}`, { headers: OK });
      const body = await response.text();
      expect(response.status, path).toBe(status);
      expectNothingLeaked(body, memoryIds);
    }
  });

  it('answers a malformed request body with a bare 400: no parser message quoting it, no stack', async () => {
    const response = await fetch(`${base}/queues/api/queues/memfade-compress/${failedJobId}/update-data`, {
      method: 'PATCH',
      headers: { ...OK, 'content-type': 'application/json' },
      body: `{"jobData": ${MARKER}`,
    });
    const body = await response.text();
    expect(response.status).toBe(400);
    expectNothingLeaked(body, memoryIds);
    expect(body).not.toMatch(/JSON|Unexpected/);
  });

  it('answers an internal error (Redis and MongoDB gone) with a bare 500 and logs the reason instead', async () => {
    const lines: string[] = [];
    const logger = createLogger({
      level: 'error',
      destination: { write: (line: string) => lines.push(line) },
    });
    const operations = await openOperations(harness.config, { logger });
    const broken = createDashboard({ ...operations, config: harness.services.config });
    const brokenServer = broken.listen(0, '127.0.0.1');
    await new Promise((resolve) => brokenServer.once('listening', resolve));
    const url = `http://127.0.0.1:${(brokenServer.address() as AddressInfo).port}`;
    try {
      await operations.close();
      for (const path of ['/queues/api/queues?activeQueue=memfade-compress&status=failed', '/runs']) {
        const response = await fetch(`${url}${path}`, { headers: OK });
        const body = await response.text();
        expect(response.status, path).toBe(500);
        expect(body).toMatch(/^(internal error|\{"error":"internal error"\})$/);
        expectNothingLeaked(body, memoryIds);
      }
      // The operator still learns what went wrong, from the log.
      expect(lines.join('')).toMatch(/dashboard request failed/);
      // /metrics is what tells a monitoring system that both are gone: it answers, and says so.
      const metrics = await fetch(`${url}/metrics`, { headers: OK });
      expect(metrics.status).toBe(200);
      const text = await metrics.text();
      expect(text).toMatch(/^memfade_redis_up 0$/m);
      expect(text).toMatch(/^memfade_mongodb_up 0$/m);
      expectNothingLeaked(text, memoryIds);
    } finally {
      await new Promise((resolve) => brokenServer.close(resolve));
    }
  });

  /** The harness's services with another dashboard configuration. */
  const withDashboard = (dashboard: MemfadeConfig['dashboard']) => ({
    ...harness.services,
    config: { ...harness.services.config, dashboard },
  });
  const isPaused = () => harness.services.queues.compress.isPaused();

  it('throttles password guessing per client: 429 with Retry-After and a warn line, the right password too, until the lockout ends', async () => {
    const lines: string[] = [];
    const logger = createLogger({
      level: 'warn',
      destination: { write: (line: string) => lines.push(line) },
    });
    let now = 0;
    const dashboard = await serve(
      createDashboard({ ...harness.services, logger }, { throttle: { now: () => now } }),
    );
    const url = `${dashboard.url}/queues/api/queues`;
    // Each guess claims another client in X-Forwarded-For: the dashboard must not believe it.
    const wrong = (i: number) => ({
      authorization: auth(`${CREDENTIALS.user}:guess-${i}`),
      'x-forwarded-for': `203.0.113.${i % 250}`,
    });
    try {
      const statuses: Record<number, number> = {};
      const retryAfter = new Set<unknown>();
      for (let i = 0; i < 2_000; i++) {
        const reply = await send(url, { headers: wrong(i) });
        statuses[reply.status] = (statuses[reply.status] ?? 0) + 1;
        if (reply.status === 429) {
          retryAfter.add(reply.headers['retry-after']);
          expect(reply.body).toBe('too many failed logins: try again later');
        }
      }
      // Five free failures; the sixth starts a 1 s lockout in which nothing is checked.
      expect(statuses).toEqual({ 401: 5, 429: 1_995 });
      expect([...retryAfter]).toEqual(['1']);
      const warned = () =>
        lines.map((line) => JSON.parse(line)).filter((l) => l.msg === 'dashboard login throttled');
      expect(warned()).toEqual([
        expect.objectContaining({ client: '127.0.0.1', failures: 6, retryAfterSeconds: 1 }),
      ]);
      expect(lines.join('')).not.toContain('guess-');
      // The right password during the lockout is refused like any other...
      expect((await send(url, { headers: OK })).status).toBe(429);
      // ...while another client (another source address) is not locked out.
      expect((await send(url, { headers: OK, localAddress: '127.0.0.2' })).status).toBe(200);

      // After the lockout, the next failure locks twice as long.
      now += 1_000;
      const again = await send(url, { headers: wrong(0) });
      expect([again.status, again.headers['retry-after']]).toEqual([429, '2']);
      expect(warned()).toHaveLength(2);
      now += 1_999;
      expect((await send(url, { headers: OK })).status).toBe(429);
      now += 1;
      expect((await send(url, { headers: OK })).status).toBe(200);
      // The success reset the client: five free failures again.
      for (let i = 0; i < 5; i++) expect((await send(url, { headers: wrong(i) })).status).toBe(401);
      expect(lines.join('')).not.toContain(CREDENTIALS.password);
    } finally {
      await dashboard.close();
    }
  });

  it('answers only to its own host names, on loopback without credentials too (DNS rebinding)', async () => {
    const dashboard = await serve(
      createDashboard(
        withDashboard({ host: '127.0.0.1', port: 0, readOnly: false, allowedHosts: ['dash.example.com'] }),
      ),
    );
    const { port } = dashboard;
    const get = (path: string, host: string) => send(`${dashboard.url}${path}`, { headers: { host } });
    try {
      for (const host of [
        `rebind.attacker.example:${port}`,
        `localhost.attacker.example:${port}`,
        `127.0.0.1.nip.io:${port}`,
        `user@127.0.0.1:${port}`,
      ])
        for (const path of ['/queues/api/queues', '/queues', '/runs', '/metrics', '/']) {
          const reply = await get(path, host);
          expect(reply.status, `${host} ${path}`).toBe(421);
          expect(reply.body).toMatch(/DASHBOARD_ALLOWED_HOSTS$/);
          expect(reply.body).not.toContain('attacker');
          expectNothingLeaked(reply.body, memoryIds);
        }
      for (const host of [
        `localhost:${port}`,
        `127.0.0.1:${port}`,
        `[::1]:${port}`,
        `DASH.example.com:${port}`,
      ])
        expect((await get('/queues/api/queues', host)).status, host).toBe(200);
      // /healthz says only up or down: a probe may use any address (a pod's IP).
      expect((await get('/healthz', `10.1.2.3:${port}`)).status).toBe(200);
      // The rebinding page's change, with its own Host and Origin, never reaches the queue.
      const pause = await send(`${dashboard.url}/queues/api/queues/memfade-compress/pause`, {
        method: 'PUT',
        headers: {
          host: `rebind.attacker.example:${port}`,
          origin: `http://rebind.attacker.example:${port}`,
        },
      });
      expect(pause.status).toBe(421);
      expect(await isPaused()).toBe(false);
    } finally {
      await dashboard.close();
    }
  });

  it("refuses a change whose Origin or Referer is not the dashboard's own: the queue keeps running", async () => {
    const dashboard = await serve(createDashboard(harness.services, { throttle: { freeFailures: 1_000 } }));
    const pause = (headers: Record<string, string>, action = 'pause') =>
      send(`${dashboard.url}/queues/api/queues/memfade-compress/${action}`, {
        method: 'PUT',
        headers: { ...OK, ...headers },
      });
    try {
      const foreign: Record<string, string>[] = [
        { origin: `http://rebind.attacker.example:${dashboard.port}` },
        { origin: 'null' },
        // Another name the dashboard answers to is still another origin.
        { origin: `http://localhost:${dashboard.port}` },
        { referer: 'http://attacker.example/csrf.html' },
        { origin: `http://attacker.example`, referer: `${dashboard.url}/queues` },
      ];
      for (const headers of foreign) {
        const reply = await pause(headers);
        expect(reply.status, JSON.stringify(headers)).toBe(403);
        expect(reply.body).toBe('cross-origin request refused');
        expect(await isPaused()).toBe(false);
      }
      // Bull Board's own page sends its own origin: that change goes through.
      expect((await pause({ origin: dashboard.url })).status).toBe(200);
      expect(await isPaused()).toBe(true);
      expect((await pause({ referer: `${dashboard.url}/queues` }, 'resume')).status).toBe(200);
      expect(await isPaused()).toBe(false);
    } finally {
      await harness.services.queues.compress.resume();
      await dashboard.close();
    }
  });

  it('is read-only without credentials, also on loopback: every change refused, saying what to set', async () => {
    const dashboard = await serve(
      createDashboard(withDashboard({ host: '127.0.0.1', port: 0, readOnly: false })),
    );
    const queue = `${dashboard.url}/queues/api/queues/memfade-compress`;
    try {
      for (const [method, url] of [
        ['PUT', `${queue}/pause`],
        ['PUT', `${queue}/retry/failed`],
        ['PUT', `${queue}/obliterate`],
        ['POST', `${queue}/add`],
        ['PATCH', `${queue}/${failedJobId}/update-data`],
        ['DELETE', `${queue}/${failedJobId}`],
      ] as const) {
        const reply = await send(url, { method });
        expect(reply.status, `${method} ${url}`).toBe(403);
        expect(reply.body).toMatch(/^read-only: set DASHBOARD_USER and DASHBOARD_PASSWORD/);
      }
      expect(await isPaused()).toBe(false);
      expect(await harness.services.queues.compress.getJobCounts('failed')).toEqual({ failed: 1 });
      // It still shows the queues, with Bull Board's actions hidden.
      const list = await send(`${dashboard.url}/queues/api/queues`);
      expect(list.status).toBe(200);
      const { queues } = JSON.parse(list.body) as { queues: { name: string; readOnlyMode: boolean }[] };
      expect(queues.map((q) => q.readOnlyMode)).toEqual([true, true, true]);
    } finally {
      await dashboard.close();
    }
  });
});

describe('DASHBOARD_ALLOWED_HOSTS', () => {
  it('takes comma-separated host names, and names the setting when one is not', () => {
    const parse = (value: string) => configFromEnv(parseEnv(envSchema, { DASHBOARD_ALLOWED_HOSTS: value }));
    expect(parse(' Dash.Example.com, [2001:db8::1] ,').dashboard.allowedHosts).toEqual([
      'dash.example.com',
      '[2001:db8::1]',
    ]);
    for (const bad of ['https://dash.example.com', 'dash.example.com:3000', 'dash example.com'])
      expect(() => parse(bad)).toThrow(/DASHBOARD_ALLOWED_HOSTS: ".*" is not a host name/);
  });
});
