import { mkdir } from 'node:fs/promises';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { enqueueRun, startWorkerRole, waitForRun } from '@memfade/app';
import { insertMemories, type RunRecord } from '@memfade/db';
import { openQueues, producerConnection } from '@memfade/queue';
import { generateDemoData } from '@memfade/samples';
import { emulatedAnthropic, type Harness, startHarness } from '@memfade/system-tests';
import { type LlmEmulator, parsePrometheus, startLlmEmulator } from '@memfade/testing';
import { chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDashboard } from './app.js';

const NOW = new Date('2026-11-22T03:00:00Z');
const BROKEN = 'broken-memory';
const DAY = 24 * 60 * 60 * 1000;

/**
 * 24 earlier runs as the run tracker records them: nightly, manual and backfill runs (long ids), a
 * night of 1,000 memories with 2 failures, one of 9 with 2, a batch night, an interrupted one.
 */
function history(): Record<string, unknown>[] {
  return Array.from({ length: 24 }, (_, i) => {
    const startedAt = new Date(NOW.getTime() - (24 - i) * DAY);
    const trigger = i % 7 === 3 ? 'backfill' : i % 5 === 1 ? 'manual' : 'schedule';
    const runId =
      trigger === 'schedule'
        ? `nightly-${startedAt.toISOString().slice(0, 10)}`
        : `${trigger}-${startedAt.toISOString().replace(/[:.]/g, '-')}`;
    const processed = i === 20 ? 1_000 : i === 21 ? 9 : 40 + ((i * 37) % 200);
    const failed = i === 20 || i === 21 ? 2 : i % 6 === 0 ? 5 : 0;
    const usage = {
      inputTokens: processed * 900,
      outputTokens: processed * 120,
      cacheReadTokens: 0,
      cacheWriteTokens: 0,
    };
    return {
      runId,
      trigger,
      asOf: startedAt,
      startedAt,
      producerDoneAt: startedAt,
      finishedAt: new Date(startedAt.getTime() + 3_600_000),
      durationMs: 3_600_000,
      users: 40,
      ...(i === 9 && { interrupted: true }),
      counts: {
        selected: processed + 3,
        enqueued: processed,
        processed,
        v1: processed - failed,
        v2: Math.floor(processed / 3),
        skipped: 1,
        noop: 0,
        failed,
        heldBack: 3,
        deferred: 0,
        ...(i === 9 && { unprocessed: 12 }),
      },
      tokens: { v1: usage, v2: usage },
      cost: { v1: processed * 0.0011, v2: processed * 0.0004 },
      ratioSums: { v1: { sum: processed * 0.42, n: processed }, v2: { sum: processed * 0.18, n: processed } },
      batches:
        i === 22
          ? {
              mode: 'batch',
              submitted: 3,
              ended: 3,
              requests: { succeeded: 1_000, errored: 2, applied: 998 },
              firstResultAt: new Date(startedAt.getTime() + 600_000),
              lastResultAt: new Date(startedAt.getTime() + 3_000_000),
            }
          : { mode: 'sync', reason: `${trigger} runs are sync` },
    };
  });
}
const ARTIFACTS = fileURLToPath(new URL('../../../test-artifacts/', import.meta.url));
const CREDENTIALS = { user: 'ops', password: 'correct horse battery staple' };
const auth = (user: string, password: string) =>
  `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

describe('dashboard', () => {
  let harness: Harness;
  let emulator: LlmEmulator;
  let server: Server;
  let base: string;
  let runId: string;
  let run: RunRecord;

  beforeAll(async () => {
    emulator = await startLlmEmulator();
    harness = await startHarness({
      now: NOW,
      config: {
        provider: emulatedAnthropic(emulator),
        prices: { emulated: { input: 1, output: 5, cacheRead: 0.1, cacheWrite: 1.25 } },
      },
    });
    harness.services.config.dashboard = { host: '127.0.0.1', port: 0, ...CREDENTIALS, readOnly: false };
    const data = generateDemoData({ now: NOW, users: 2 });
    await insertMemories(harness.services.models, data.memories, data.roleCards);
    // One bad-input memory (content neither text nor turns), written as the product would (no
    // schema casting): the night has a failure to show.
    const first = data.memories[0]!;
    const broken = {
      ...first,
      memoryId: BROKEN,
      content: { raw: 42 },
      meta: { ...(first.meta as object), createdAt: new Date(NOW.getTime() - 4 * DAY) },
    };
    await harness.services.models.memories.collection.insertOne(broken);
    const workers = startWorkerRole(harness.services);
    runId = await enqueueRun(harness.services, { trigger: 'schedule', asOf: NOW });
    run = await waitForRun(harness.services, runId, { timeoutMs: 60_000 });
    await workers.close();
    // Earlier nights, as the runs collection holds them: a month of history to draw.
    await harness.services.models.runs.collection.insertMany(history());
    server = createDashboard(harness.services).listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }, 120_000);

  afterAll(async () => {
    await new Promise((resolve) => server?.close(resolve));
    await harness?.close();
    await emulator?.close();
  });

  it('refuses to start on a non-loopback address without credentials', () => {
    const exposed = {
      ...harness.services,
      config: { ...harness.services.config, dashboard: { host: '0.0.0.0', port: 0, readOnly: false } },
    };
    expect(() => createDashboard(exposed)).toThrow(
      /DASHBOARD_USER and DASHBOARD_PASSWORD are required when DASHBOARD_HOST \(0\.0\.0\.0\)/,
    );
  });

  it('rejects missing and wrong credentials without leaking queue data', async () => {
    for (const headers of [{}, { authorization: auth('ops', 'wrong') }, { authorization: 'Bearer x' }]) {
      const response = await fetch(`${base}/queues/api/queues`, { headers });
      expect(response.status).toBe(401);
      const body = await response.text();
      expect(body).toBe('authentication required');
    }
    const ok = await fetch(`${base}/queues/api/queues`, {
      headers: { authorization: auth(CREDENTIALS.user, CREDENTIALS.password) },
    });
    expect(ok.status).toBe(200);
  });

  it('answers /healthz without credentials when Redis and MongoDB are reachable', async () => {
    const response = await fetch(`${base}/healthz`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ redis: 'ok', mongodb: 'ok' });
  });

  it('serves Prometheus metrics with non-zero completed jobs and tokens after a run', async () => {
    const response = await fetch(`${base}/metrics`, {
      headers: { authorization: auth(CREDENTIALS.user, CREDENTIALS.password) },
    });
    // Prometheus's text format, version 0.0.4 (parameters in any order).
    expect(response.headers.get('content-type')).toMatch(/^text\/plain;.*version=0\.0\.4/);
    const text = await response.text();
    const families = await parsePrometheus(text);
    const value = (series: RegExp) => Number(text.match(series)?.[1] ?? 0);
    // One per stage written, under the stage written: a raw memory 7 days old gets one job to V2
    // that writes V1 then V2 (labelled by its target, the V1 writes were counted as V2 jobs).
    expect(run.counts.v1).toBeGreaterThan(run.counts.v2);
    expect(run.counts.v2).toBeGreaterThan(0);
    expect(value(/^memfade_jobs_total\{stage="v1",outcome="completed"\} (\d+)$/m)).toBe(run.counts.v1);
    expect(value(/^memfade_jobs_total\{stage="v2",outcome="completed"\} (\d+)$/m)).toBe(run.counts.v2);
    // The broken memory's job, once, under its target stage.
    const failedJobs = ['v1', 'v2'].map((stage) =>
      value(new RegExp(`^memfade_jobs_total\\{stage="${stage}",outcome="failed"\\} (\\d+)$`, 'm')),
    );
    expect(failedJobs[0]! + failedJobs[1]!).toBe(1);
    expect(value(/^memfade_tokens_total\{stage="v1",kind="output"\} (\d+)$/m)).toBeGreaterThan(0);
    expect(value(/^memfade_cost_usd_total\{stage="v1"\} ([\d.e-]+)$/m)).toBeGreaterThan(0);
    expect(families.memfade_job_duration_seconds?.type).toBe('histogram');
    expect(text).toMatch(/^memfade_compression_ratio_bucket\{stage="v1",le="\+Inf"\} \d+$/m);
    // The night's 16 completed jobs are not depth: nothing waits.
    expect(text).toMatch(/^memfade_queue_depth\{queue="compress",state="waiting"\} 0$/m);
    expect(text).not.toMatch(/state="completed"/);
    expect(
      value(/^memfade_last_run_finished_timestamp_seconds\{trigger="schedule"\} (\d+)/m),
    ).toBeGreaterThan(0);
    expect(text).toMatch(/^memfade_redis_up 1$/m);
  });

  it('answers /metrics with 200 and memfade_redis_up 0 when Redis is unreachable', async () => {
    // Nothing listens on port 1.
    const dead = producerConnection('redis://127.0.0.1:1', { retryStrategy: () => 50 });
    dead.on('error', () => undefined);
    const queues = openQueues({ connection: dead, prefix: harness.config.queuePrefix });
    for (const queue of [queues.nightly, queues.compress]) queue.on('error', () => undefined);
    const app = createDashboard({ ...harness.services, redis: dead, queues }).listen(0, '127.0.0.1');
    try {
      await new Promise((resolve) => app.once('listening', resolve));
      const response = await fetch(`http://127.0.0.1:${(app.address() as AddressInfo).port}/metrics`, {
        headers: { authorization: auth(CREDENTIALS.user, CREDENTIALS.password) },
      });
      expect(response.status).toBe(200);
      const families = await parsePrometheus(await response.text());
      expect(families.memfade_redis_up?.data).toEqual([{ labels: {}, value: 0 }]);
      expect(families.memfade_mongodb_up?.data).toEqual([{ labels: {}, value: 1 }]);
    } finally {
      await new Promise((resolve) => app.close(resolve));
      dead.disconnect();
    }
  });

  it('with METRICS_TOKEN, asks /metrics for that bearer token and nothing else of the dashboard', async () => {
    const token = 'scrape-token-5ad1';
    const { config } = harness.services;
    const app = createDashboard({
      ...harness.services,
      config: { ...config, dashboard: { ...config.dashboard, metricsToken: token } },
    }).listen(0, '127.0.0.1');
    try {
      await new Promise((resolve) => app.once('listening', resolve));
      const url = `http://127.0.0.1:${(app.address() as AddressInfo).port}`;
      const status = async (path: string, authorization?: string) =>
        (await fetch(`${url}${path}`, { headers: authorization ? { authorization } : {} })).status;
      expect(await status('/metrics')).toBe(401);
      expect(await status('/metrics', 'Bearer wrong')).toBe(401);
      // The dashboard's password is not the scraper's key any more.
      expect(await status('/metrics', auth(CREDENTIALS.user, CREDENTIALS.password))).toBe(401);
      expect(await status('/metrics', `Bearer ${token}`)).toBe(200);
      // ...and the token opens nothing else.
      expect(await status('/runs', `Bearer ${token}`)).toBe(401);
      expect(await status('/runs', auth(CREDENTIALS.user, CREDENTIALS.password))).toBe(200);
    } finally {
      await new Promise((resolve) => app.close(resolve));
    }
  });

  it('works in a real browser: refused without credentials, then the queue with its jobs and the run history', async () => {
    await mkdir(ARTIFACTS, { recursive: true });
    const browser = await chromium.launch({
      executablePath: '/usr/bin/chromium',
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    });
    try {
      const anonymous = await browser.newPage();
      // Headless Chromium answers a basic-auth challenge it has no credentials for by failing the navigation.
      const refused = await anonymous.goto(`${base}/queues`).then(
        (response) => `status ${response?.status()}`,
        (error: Error) => error.message,
      );
      expect(refused).toMatch(/status 401|ERR_INVALID_AUTH_CREDENTIALS/);
      const context = await browser.newContext({
        httpCredentials: { username: CREDENTIALS.user, password: CREDENTIALS.password },
      });
      const page = await context.newPage();
      await page.goto(`${base}/queues/queue/memfade-compress?status=completed`);
      await page.getByText('memfade-compress').first().waitFor();
      await page
        .getByText(/demo-(zh|en)-\d+-d\d+\.v1/)
        .first()
        .waitFor();
      await page.screenshot({ path: `${ARTIFACTS}dashboard-queue.png`, fullPage: true });
      // A change from the board's own page carries the dashboard's own Origin: it goes through.
      const put = (action: string) =>
        page.evaluate(
          async (url) => (await fetch(url, { method: 'PUT' })).status,
          `/queues/api/queues/memfade-compress/${action}`,
        );
      expect(await put('pause')).toBe(200);
      expect(await harness.services.queues.compress.isPaused()).toBe(true);
      expect(await put('resume')).toBe(200);
      expect(await harness.services.queues.compress.isPaused()).toBe(false);
      // The run history on a 1,280 px screen: 25 runs, no horizontal scroll.
      await page.setViewportSize({ width: 1280, height: 900 });
      await page.goto(`${base}/runs`);
      await page.getByRole('heading', { name: 'Run history' }).waitFor();
      const newest = page.locator('tbody tr').first();
      expect(await newest.textContent()).toContain(runId);
      expect(await page.locator('tbody tr').count()).toBe(25);
      await page.screenshot({ path: `${ARTIFACTS}dashboard-runs.png`, fullPage: true });
      expect(await page.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(1280);
      // The chart: a y axis of memories, the runs' dates, and the failures of every run that had
      // some drawn at least 3 px tall (2 of 1,000 was a sub-pixel line).
      const chart = page.getByRole('img', { name: /memories processed per run/ });
      for (const label of ['memories', '0', '1000', '11-21', 'run start (UTC)'])
        expect(
          await chart.locator('text', { hasText: new RegExp(`^${label.replace(/[()]/g, '\\$&')}$`) }).count(),
          label,
        ).toBeGreaterThan(0);
      const failedMark = async (id: string) =>
        (await chart.locator(`a[data-run="${id}"] rect.failed`).boundingBox())?.height ?? 0;
      for (const id of ['nightly-2026-11-18', 'manual-2026-11-19T03-00-00-000Z', runId])
        expect(await failedMark(id), id).toBeGreaterThanOrEqual(3);
      expect(await chart.locator('rect.failed').count()).toBe(1 + 2 + 4);
      // The run's failed count opens its errors: memory, stage, reason.
      const [error] = await harness.services.runs.errors(runId, 10);
      expect(error).toMatchObject({ memoryId: BROKEN, stage: 'input' });
      await newest.getByTitle("the run's errors: memory, stage, reason").click();
      await page.getByRole('heading', { name: `Errors of run ${runId}` }).waitFor();
      const row = page.locator('tbody tr', { hasText: BROKEN });
      expect(await row.locator('td').allTextContents()).toEqual([
        BROKEN,
        'input',
        error!.message,
        expect.stringMatching(/^\d{4}-\d\d-\d\d \d\d:\d\d UTC$/),
      ]);
      expect(await page.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(1280);
      await page.screenshot({ path: `${ARTIFACTS}dashboard-run-errors.png`, fullPage: true });
      // Bull Board opens the failed job on its error, not on its data.
      const [failedJob] = await harness.services.queues.compress.getFailed();
      expect(failedJob?.data.memoryId).toBe(BROKEN);
      await page.goto(`${base}/queues/queue/memfade-compress/${encodeURIComponent(failedJob!.id!)}`);
      const tab = page.locator('[class^="tabContent"]');
      await tab.waitFor();
      await page.getByText(failedJob!.failedReason.slice(0, 40)).first().waitFor();
      expect(await tab.textContent()).toContain(failedJob!.failedReason.slice(0, 40));
      await page.screenshot({ path: `${ARTIFACTS}dashboard-failed-job.png`, fullPage: true });
      // The run's link opens its nightly-run job in Bull Board.
      await page.goto(`${base}/runs`);
      await newest.getByRole('link', { name: runId }).click();
      await page.getByText('nightly-run').first().waitFor();
      expect(page.url()).toBe(`${base}/queues/queue/memfade-nightly/${runId}`);
    } finally {
      await browser.close();
    }
  }, 240_000);
});
