import { type IncomingHttpHeaders, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { configFromEnv, envSchema, type MemfadeConfig } from '@memfade/app';
import { createLogger, parseEnv } from '@memfade/runtime';
import {
  basicAuth,
  CREDENTIALS,
  type DashboardScene,
  dashboardScene,
  expectNothingLeaked,
  OK,
} from '@memfade/system-tests';
import type { Express } from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDashboard } from './app.js';

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

// The dashboard's guards: against password guessing, other host names (DNS rebinding), changes from
// other origins and changes without credentials. What it answers a refused request is
// dashboard-security.test.ts's.
describe('dashboard guards', () => {
  let scene: DashboardScene;

  beforeAll(async () => {
    scene = await dashboardScene();
  });

  afterAll(async () => {
    await scene?.close();
  });

  /** The harness's services with another dashboard configuration. */
  const withDashboard = (dashboard: MemfadeConfig['dashboard']) => ({
    ...scene.harness.services,
    config: { ...scene.harness.services.config, dashboard },
  });
  const isPaused = () => scene.harness.services.queues.compress.isPaused();

  it('throttles password guessing per client: 429 with Retry-After and a warn line, the right password too, until the lockout ends', async () => {
    const lines: string[] = [];
    const logger = createLogger({
      level: 'warn',
      destination: { write: (line: string) => lines.push(line) },
    });
    let now = 0;
    const dashboard = await serve(
      createDashboard({ ...scene.harness.services, logger }, { throttle: { now: () => now } }),
    );
    const url = `${dashboard.url}/queues/api/queues`;
    // Each guess claims another client in X-Forwarded-For: the dashboard must not believe it.
    const wrong = (i: number) => ({
      authorization: basicAuth(`${CREDENTIALS.user}:guess-${i}`),
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
          expectNothingLeaked(reply.body, scene.memoryIds);
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
    const dashboard = await serve(
      createDashboard(scene.harness.services, { throttle: { freeFailures: 1_000 } }),
    );
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
      await scene.harness.services.queues.compress.resume();
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
        ['PATCH', `${queue}/${scene.failedJobId}/update-data`],
        ['DELETE', `${queue}/${scene.failedJobId}`],
      ] as const) {
        const reply = await send(url, { method });
        expect(reply.status, `${method} ${url}`).toBe(403);
        expect(reply.body).toMatch(/^read-only: set DASHBOARD_USER and DASHBOARD_PASSWORD/);
      }
      expect(await isPaused()).toBe(false);
      expect(await scene.harness.services.queues.compress.getJobCounts('failed')).toEqual({ failed: 1 });
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
