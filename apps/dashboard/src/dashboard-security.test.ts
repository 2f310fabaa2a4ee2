import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { openOperations } from '@memfade/app';
import { createLogger } from '@memfade/runtime';
import {
  basicAuth,
  CREDENTIALS,
  type DashboardScene,
  dashboardScene,
  expectNothingLeaked,
  MARKER,
  OK,
} from '@memfade/system-tests';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDashboard } from './app.js';

// What the dashboard answers a request it refuses or cannot serve; its guards against guessing,
// other host names, other origins and changes without credentials are dashboard-guards.test.ts's.
describe('dashboard refusals and error pages', () => {
  let scene: DashboardScene;
  let server: Server;
  let base: string;

  beforeAll(async () => {
    scene = await dashboardScene();
    // This server lets the refusal tests guess freely; the throttle has its own test.
    server = createDashboard(scene.harness.services, { throttle: { freeFailures: 1_000 } }).listen(
      0,
      '127.0.0.1',
    );
    await new Promise((resolve) => server.once('listening', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    await new Promise((resolve) => server?.close(resolve));
    await scene?.close();
  });

  it('refuses missing, wrong and malformed credentials on every protected path, saying nothing else', async () => {
    const paths = [
      ['GET', '/'],
      ['GET', '/queues'],
      ['GET', '/queues/queue/memfade-compress'],
      ['GET', '/queues/api/queues?activeQueue=memfade-compress&status=failed'],
      ['GET', `/queues/api/queues/memfade-compress/${scene.failedJobId}`],
      ['GET', '/queues/api/redis/stats'],
      ['PUT', '/queues/api/queues/memfade-compress/retry/failed'],
      ['GET', '/runs'],
      ['GET', '/metrics'],
      ['GET', '/no-such-page'],
    ];
    const refused = [
      {},
      { authorization: basicAuth(`${CREDENTIALS.user}:wrong`) },
      { authorization: basicAuth(`admin:${CREDENTIALS.password}`) },
      { authorization: basicAuth(`${CREDENTIALS.user}:${CREDENTIALS.password} `) },
      { authorization: basicAuth(CREDENTIALS.user) },
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
        expectNothingLeaked(body, scene.memoryIds);
      }
    }
    // The refused retry did nothing.
    expect(await scene.harness.services.queues.compress.getJobCounts('failed')).toEqual({ failed: 1 });
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
      expectNothingLeaked(body, scene.memoryIds);
    }
  });

  it('answers a malformed request body with a bare 400: no parser message quoting it, no stack', async () => {
    const response = await fetch(
      `${base}/queues/api/queues/memfade-compress/${scene.failedJobId}/update-data`,
      {
        method: 'PATCH',
        headers: { ...OK, 'content-type': 'application/json' },
        body: `{"jobData": ${MARKER}`,
      },
    );
    const body = await response.text();
    expect(response.status).toBe(400);
    expectNothingLeaked(body, scene.memoryIds);
    expect(body).not.toMatch(/JSON|Unexpected/);
  });

  it('answers an internal error (Redis and MongoDB gone) with a bare 500 and logs the reason instead', async () => {
    const lines: string[] = [];
    const logger = createLogger({
      level: 'error',
      destination: { write: (line: string) => lines.push(line) },
    });
    const operations = await openOperations(scene.harness.config, { logger });
    const broken = createDashboard({ ...operations, config: scene.harness.services.config });
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
        expectNothingLeaked(body, scene.memoryIds);
      }
      // The operator still learns what went wrong, from the log.
      expect(lines.join('')).toMatch(/dashboard request failed/);
      // /metrics is what tells a monitoring system that both are gone: it answers, and says so.
      const metrics = await fetch(`${url}/metrics`, { headers: OK });
      expect(metrics.status).toBe(200);
      const text = await metrics.text();
      expect(text).toMatch(/^memfade_redis_up 0$/m);
      expect(text).toMatch(/^memfade_mongodb_up 0$/m);
      expectNothingLeaked(text, scene.memoryIds);
    } finally {
      await new Promise((resolve) => brokenServer.close(resolve));
    }
  });
});
