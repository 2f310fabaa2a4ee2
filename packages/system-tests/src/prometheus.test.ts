import { type ChildProcess, spawn } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { enqueueRun, waitForRun } from '@memfade/app';
import { insertMemories, memoryDocument } from '@memfade/db';
import { childEnv, type LlmEmulator, startLlmEmulator, tempDir, until } from '@memfade/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DrawnPanel, drawDashboard, legendOf } from './dashboard-picture.js';
import { type Harness, startHarness } from './harness.js';

/**
 * A real Prometheus (Debian's, scripts/lib/bootstrap.sh ensure_prometheus) scraping the built
 * dashboard's /metrics every second through a night run by the built worker against the LLM
 * emulator, with infra/prometheus/rules.yml loaded (docs/operations.md "Alerts" and "Grafana").
 * Then, through its HTTP API: every metric docs/operations.md names has samples, every rule
 * evaluates without error, and every panel of infra/grafana/dashboards/memfade.json names only
 * metrics memfade exports and draws something.
 */

const root = fileURLToPath(new URL('../../../', import.meta.url));
const workerMain = join(root, 'apps/worker/dist/main.js');
const dashboardMain = join(root, 'apps/dashboard/dist/main.js');
const { parse: parseYaml } = createRequire(join(root, 'packages/app/package.json'))('yaml') as {
  parse(text: string): unknown;
};
const DAY = 86_400_000;
const PRICES = { emulated: { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 } };

async function freePort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** A child process whose output is kept (the last 20 kB) for a failing test to show. */
function start(command: string, args: string[], env: NodeJS.ProcessEnv) {
  const child = spawn(command, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-20_000);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  return { child, output: () => output };
}

async function stop(child: ChildProcess | undefined): Promise<void> {
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
  await exited;
  clearTimeout(timer);
}

interface PromResponse<T> {
  status: 'success' | 'error';
  error?: string;
  data: T;
}
type Series = { metric: Record<string, string>; value?: [number, string]; values?: [number, string][] }[];

describe('a real Prometheus scraping a night', () => {
  let harness: Harness | undefined;
  let emulator: LlmEmulator | undefined;
  const children: ChildProcess[] = [];
  const cleanups: (() => Promise<void>)[] = [];
  let prom = '';
  let nightStart = 0;
  let runId = '';
  let processed = 0;

  const api = async <T>(
    path: string,
    params: Record<string, string | number> = {},
  ): Promise<PromResponse<T>> => {
    const query = new URLSearchParams(
      Object.entries(params).map(([k, v]): [string, string] => [k, String(v)]),
    );
    const response = await fetch(`${prom}/api/v1/${path}?${query}`);
    return (await response.json()) as PromResponse<T>;
  };
  const instant = async (expr: string) => {
    const body = await api<{ result: Series }>('query', { query: expr });
    expect(body.error, expr).toBeUndefined();
    return body.data.result;
  };

  beforeAll(async () => {
    const now = new Date();
    emulator = await startLlmEmulator();
    harness = await startHarness({ now });
    const { services, config } = harness;
    // 24 memories, 16 due for V1 and 8 for V1 then V2; one reply refused (a model failure by
    // reason); each call takes 150 ms, so the night lasts seconds and is scraped open.
    const docs = Array.from({ length: 24 }, (_, i) =>
      memoryDocument({
        memoryId: `m${i}`,
        userId: `u${i % 4}`,
        partnerId: 'p1',
        turns: [
          {
            role: 'user',
            text: `${i === 5 ? 'REFUSE ' : ''}Day ${i}: my sister Mia drives the van from Leeds.`,
          },
          { role: 'assistant', text: 'A big step! Is anything left to pack before Saturday?' },
          { role: 'user', text: `Only the books, box ${i}. Tom from work promised to help carry the sofa.` },
        ],
        createdAt: new Date(now.getTime() - (i < 16 ? 4 : 9) * DAY),
        language: 'en',
      }),
    );
    await insertMemories(
      services.models,
      docs,
      [0, 1, 2, 3].map((u) => ({ userId: `u${u}`, name: `Kai${u}` })),
    );
    emulator.setRule(({ api, body }) => {
      if (api === 'embeddings') return undefined;
      return JSON.stringify(body).includes('REFUSE') ? { kind: 'refuse' } : { kind: 'slow', delayMs: 150 };
    });

    const env = childEnv({
      REDIS_URL: config.redisUrl,
      MONGODB_URI: config.mongodbUri,
      MONGODB_DB: config.mongodbDb,
      MEMFADE_QUEUE_PREFIX: config.queuePrefix,
      LANCEDB_DIR: config.vector.dir,
      MEMFADE_PROVIDER: 'anthropic',
      ANTHROPIC_API_KEY: 'sk-ant-prometheus-test',
      ANTHROPIC_BASE_URL: emulator.url,
      MEMFADE_MODEL: 'emulated',
      MEMFADE_PRICES: JSON.stringify(PRICES),
      NIGHT_BUDGET_USD: '100',
      MODEL_MODE: 'sync',
      MODEL_TIMEOUT_MS: '5000',
      WORKER_CONCURRENCY: '4',
      JOB_RETRY_BACKOFF_MS: '100',
      SCHEDULER_ENABLED: 'false',
      VECTOR_SYNC_INTERVAL_MS: '500',
      SHUTDOWN_GRACE_MS: '3000',
      LOG_LEVEL: 'warn',
    });
    const dashboardPort = await freePort();
    const dashboard = start(process.execPath, [dashboardMain], {
      ...env,
      DASHBOARD_PORT: String(dashboardPort),
    });
    const worker = start(process.execPath, [workerMain], env);
    children.push(dashboard.child, worker.child);

    const dir = await tempDir('memfade-prometheus-');
    cleanups.push(dir.remove);
    const promPort = await freePort();
    await writeFile(
      join(dir.dir, 'prometheus.yml'),
      [
        'global: { scrape_interval: 1s, evaluation_interval: 1s }',
        `rule_files: [${JSON.stringify(join(root, 'infra/prometheus/rules.yml'))}]`,
        'scrape_configs:',
        '  - job_name: memfade',
        `    static_configs: [{ targets: ["127.0.0.1:${dashboardPort}"] }]`,
      ].join('\n'),
    );
    const prometheus = start(
      'prometheus',
      [
        `--config.file=${join(dir.dir, 'prometheus.yml')}`,
        `--storage.tsdb.path=${join(dir.dir, 'data')}`,
        `--web.listen-address=127.0.0.1:${promPort}`,
        '--log.level=warn',
      ],
      childEnv({}),
    );
    children.push(prometheus.child);
    prom = `http://127.0.0.1:${promPort}`;
    const show = () =>
      `prometheus:\n${prometheus.output()}\ndashboard:\n${dashboard.output()}\nworker:\n${worker.output()}`;
    // The worker is connected (its compress worker shows in the dashboard's metrics, through a scrape).
    await until(
      async () => (await instant('memfade_workers{queue="compress"} >= 1').catch(() => [])).length > 0,
      30_000,
      show,
      250,
    );

    nightStart = Date.now() / 1000;
    runId = await enqueueRun(services, { trigger: 'schedule', asOf: now });
    const run = await waitForRun(services, runId, { timeoutMs: 30_000, pollMs: 100 });
    processed = run.counts.processed;
    expect(run.counts).toMatchObject({ failed: 1, v2: 8 });
    // The finished night, a sweep and the worker's last counters reach a scrape.
    await until(
      async () =>
        (await instant(`memfade_last_run_finished_timestamp_seconds{trigger="schedule"}`)).length > 0 &&
        (await instant('memfade_sweep_records_total{action="checked"} > 0')).length > 0 &&
        (await instant('sum(memfade_jobs_total{outcome="failed"}) >= 1')).length > 0,
      15_000,
      show,
      250,
    );
    // A few more scrapes: rate() and increase() need two samples of a series, and a fleet counter
    // first appears at its first flush (as a dashboard looked at after the night sees them).
    await new Promise((resolve) => setTimeout(resolve, 3_000));
  }, 90_000);

  afterAll(async () => {
    for (const child of children.reverse()) await stop(child);
    for (const cleanup of cleanups) await cleanup();
    await harness?.close();
    await emulator?.close();
  });

  it('has samples of every metric docs/operations.md names', async () => {
    const docs = await readFile(join(root, 'docs/operations.md'), 'utf8');
    const rows = docs.split('\n').filter((line) => /^\| `memfade_/.test(line));
    const named = rows.flatMap((row) => {
      const histogram = row.includes('| histogram |');
      return [...row.split('|')[1]!.matchAll(/`(memfade_[a-z0-9_]+)/g)].map(
        (m) => `${m[1]}${histogram ? '_count' : ''}`,
      );
    });
    expect(named.length).toBeGreaterThanOrEqual(20);
    const window = `${Math.ceil(Date.now() / 1000 - nightStart) + 30}s`;
    const empty: string[] = [];
    for (const name of named) {
      if ((await instant(`count_over_time(${name}[${window}])`)).length === 0) empty.push(name);
    }
    expect(empty).toEqual([]);
  });

  it('saw the open run progress, its producer alive, and the memories it held released', async () => {
    const window = `${Math.ceil(Date.now() / 1000 - nightStart) + 30}s`;
    const seen = async (expr: string) => Number((await instant(expr))[0]?.value?.[1] ?? Number.NaN);
    const enqueued = await seen(
      `max_over_time(memfade_open_run_jobs_enqueued{run_id="${runId}"}[${window}])`,
    );
    const ended = await seen(`max_over_time(memfade_open_run_jobs_processed{run_id="${runId}"}[${window}])`);
    expect(enqueued).toBe(24);
    expect(ended).toBeGreaterThan(0);
    expect(ended).toBeLessThanOrEqual(processed);
    expect(await seen(`max_over_time(memfade_open_run_producer_dead[${window}])`)).toBe(0);
    expect(await seen(`max_over_time(memfade_open_run_cost_usd[${window}])`)).toBeGreaterThan(0);
    // Once the run finished, no open-run series is left, and nothing is held by a finished run.
    expect(await instant('memfade_open_run_jobs_processed')).toEqual([]);
    expect(await seen('sum(memfade_held_memories{holder!="open"})')).toBe(0);
    expect(await seen('memfade_night_budget_usd')).toBe(100);
    expect(await seen('max(memfade_workers{queue="compress"})')).toBe(1);
  });

  it('evaluates every rule of infra/prometheus/rules.yml without error', async () => {
    const rules = parseYaml(await readFile(join(root, 'infra/prometheus/rules.yml'), 'utf8')) as {
      groups: { rules: { alert?: string; record?: string; expr: string }[] }[];
    };
    const all = rules.groups.flatMap((g) => g.rules);
    expect(all.length).toBeGreaterThanOrEqual(20);
    for (const rule of all) {
      const body = await api<{ result: unknown }>('query', { query: rule.expr });
      expect(body, rule.alert ?? rule.record).toMatchObject({ status: 'success' });
    }
    // Prometheus loaded the same rules and evaluated them through the night: none in error.
    const loaded = await api<{ groups: { rules: { name: string; health: string; lastError?: string }[] }[] }>(
      'rules',
    );
    const evaluated = loaded.data.groups.flatMap((g) => g.rules);
    expect(evaluated).toHaveLength(all.length);
    expect(evaluated.filter((r) => r.health !== 'ok')).toEqual([]);
    // A night that went as it should raises nothing, but for the tests' Redis, which runs with
    // `--save '' --appendonly no` (runtime's embedded redis-server): that alert is pending. (The
    // deadline alert depends on the hour the suite runs: left out.)
    const alerts = await api<{ alerts: { labels: { alertname: string }; state: string }[] }>('alerts');
    expect(
      alerts.data.alerts
        .filter((a) => a.labels.alertname !== 'MemfadeNightNotFinished')
        .map((a) => a.labels.alertname),
    ).toEqual(['MemfadeRedisWithoutPersistence']);
    const persistence = await instant('memfade_redis_persistence');
    expect(Object.fromEntries(persistence.map((s) => [s.metric.kind, s.value?.[1]]))).toEqual({
      aof: '0',
      rdb: '0',
    });
  });

  it('draws every panel of the Grafana dashboard, naming only metrics memfade exports', async () => {
    const dashboard = JSON.parse(
      await readFile(join(root, 'infra/grafana/dashboards/memfade.json'), 'utf8'),
    ) as { title: string; panels: { title: string; targets: { expr: string; legendFormat?: string }[] }[] };
    const exported = new Set((await api<string[]>('label/__name__/values')).data);
    const end = Math.ceil(Date.now() / 1000);
    const problems: string[] = [];
    let queries = 0;
    const drawn: DrawnPanel[] = [];
    for (const panel of dashboard.panels) {
      const picture: DrawnPanel = { title: panel.title, series: [] };
      drawn.push(picture);
      for (const { expr: template, legendFormat } of panel.targets) {
        queries++;
        // Grafana's variables, substituted as it would for "All" and a short time range.
        const expr = template.replaceAll('$stage', '.*').replaceAll('$__rate_interval', '5s');
        for (const [name] of expr.matchAll(/\bmemfade_[a-z0-9_]+/g)) {
          if (!exported.has(name)) problems.push(`${panel.title}: ${name} is not exported`);
        }
        const body = await api<{ result: Series }>('query_range', {
          query: expr,
          start: Math.floor(nightStart) - 5,
          end,
          step: 1,
        });
        if (body.status !== 'success') problems.push(`${panel.title}: ${expr}: ${body.error}`);
        else if (!body.data.result.some((s) => (s.values ?? []).length > 0))
          problems.push(`${panel.title}: ${expr} returned nothing from ${nightStart} to ${end}`);
        for (const series of body.data?.result ?? [])
          picture.series.push({
            legend: legendOf(legendFormat, series.metric),
            points: (series.values ?? []).map(([t, v]) => [t, Number(v)]),
          });
      }
    }
    // The docs' picture (docs/operations.md "Grafana"), drawn from this night.
    await writeFile(join(tmpdir(), 'memfade-dashboard.svg'), drawDashboard(dashboard.title, drawn));
    expect(queries).toBeGreaterThanOrEqual(20);
    expect(problems).toEqual([]);
  });
});
