import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { insertMemories, memoryDocument } from '@memfade/db';
import { enqueueRun, waitForRun } from '@memfade/queue';
import { createLogger } from '@memfade/runtime';
import { openOperations, startWorkerRole } from '@memfade/service';
import { type Harness, startHarness } from '@memfade/system-tests';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDashboard } from './app.js';

const NOW = new Date('2026-11-22T03:00:00Z');
const CREDENTIALS = { user: 'ops', password: 'Tr0ub4dor-and-3-horses' };
const auth = (value: string) => `Basic ${Buffer.from(value).toString('base64')}`;
const OK = { authorization: auth(`${CREDENTIALS.user}:${CREDENTIALS.password}`) };
const MARKER = 'DASHBOARD-PRIVATE-MARKER-5521';

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
    server = createDashboard(harness.services).listen(0, '127.0.0.1');
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
});
