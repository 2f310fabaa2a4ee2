import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { childEnv, runScript, tempDir } from '@memfade/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const cli = fileURLToPath(new URL('../dist/main.js', import.meta.url));
const CRAFTED = fileURLToPath(new URL('../../../packages/eval/fixtures/crafted.jsonl', import.meta.url));
const SCHOOL = fileURLToPath(new URL('../../../packages/ai/fixtures/school-zh.jsonl', import.meta.url));

/**
 * The built CLI with no REDIS_URL and no MONGODB_URI: eval needs neither (its memories live in
 * memory), and writes only to stdout, stderr and the report folder.
 */
describe('memfade eval (built CLI)', () => {
  let cwd: Awaited<ReturnType<typeof tempDir>>;
  beforeAll(async () => {
    cwd = await tempDir('memfade-eval-');
  });
  afterAll(async () => {
    await cwd.remove();
  });

  // The whole set, one report (`--half all`), unless a test says otherwise.
  const memfade = (...args: string[]) =>
    memfadeAs(...args, ...(args.includes('--half') ? [] : ['--half', 'all']));
  const memfadeAs = (...args: string[]) =>
    runScript(cli, args, {
      env: childEnv({ LOG_LEVEL: 'warn', MIN_INPUT_CHARS: '20' }),
      cwd: cwd.dir,
      timeoutMs: 30_000,
    });

  it('--json prints the report on stdout, --report writes markdown, JSON and the chart per set', async () => {
    const report = join(cwd.dir, 'out');
    const result = await memfade('eval', CRAFTED, '--format', 'jsonl', '--json', '--report', report);
    expect(result.stderr).toContain('3/3');
    expect(result.code).toBe(0);
    const json = JSON.parse(result.stdout);
    expect(json.compressor).toBe('offline');
    expect(json.set).toBe('crafted.jsonl (jsonl)');
    expect(json.conversations).toBe(3);
    // Every memory's findings are in the JSON.
    expect(json.results.every((r: { findings: unknown[] }) => r.findings.length > 0)).toBe(true);
    expect(json.byLanguage.en.facts).toEqual({ total: 7, inRaw: 6, rawCoverage: 6 / 7 });
    expect(json.byLanguage.zh.stages.raw.facts.retention).toBe(1);
    expect(json.byLanguage.en.stages.v1.facts.counted).toBe(6);

    for (const file of ['crafted.md', 'crafted.json', 'crafted.svg'])
      expect(existsSync(join(report, file))).toBe(true);
    const written = JSON.parse(readFileSync(join(report, 'crafted.json'), 'utf8'));
    expect(written.byLanguage).toEqual(json.byLanguage);
    const markdown = readFileSync(join(report, 'crafted.md'), 'utf8');
    expect(markdown).toMatch(/^\| raw +\| 2 +\| 100\.0% \(6\/6\) +\|/m);
    expect(markdown).toContain('Set: crafted.jsonl (jsonl). Compressor: offline');
    expect(markdown).toContain('### How it reads');
    const svg = readFileSync(join(report, 'crafted.svg'), 'utf8');
    expect(svg.startsWith('<svg')).toBe(true);
    // One bar per stage and language that has facts: raw, V1, V2 for zh and en.
    expect(svg.match(/<rect class="bar"/g)).toHaveLength(6);
    expect(svg).toContain('data-stage="v2" data-language="zh"');
  });

  it('--sample and --seed pick the same conversations every time; --limit caps them', async () => {
    const pick = async (...args: string[]) => {
      const result = await memfade('eval', CRAFTED, '--format', 'jsonl', '--json', ...args);
      return (JSON.parse(result.stdout).results as { id: string }[]).map((r) => r.id);
    };
    const first = await pick('--sample', '2', '--seed', '3');
    expect(first).toHaveLength(2);
    expect(await pick('--sample', '2', '--seed', '3')).toEqual(first);
    expect(await pick('--limit', '1')).toEqual(['maya']);
  });

  it('--show n quotes the best and the worst n memories of each language', async () => {
    const quoted = async (...args: string[]) =>
      (await memfade('eval', CRAFTED, '--format', 'jsonl', ...args)).stdout.match(
        /^#### (?:best|worst) \d+/gm,
      );
    // One Chinese memory, then two English ones: by default both are among the best three.
    expect(await quoted()).toEqual(['#### best 1', '#### best 1', '#### best 2']);
    expect(await quoted('--show', '1')).toEqual(['#### best 1', '#### best 1', '#### worst 1']);
  });

  it('by default each set is its tune and its check half, two reports, never merged', async () => {
    const report = join(cwd.dir, 'halves');
    const result = await memfadeAs('eval', SCHOOL, '--format', 'jsonl', '--json', '--report', report);
    expect(result.code).toBe(0);
    const reports = result.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { set: string; results: { id: string }[] });
    // The halves split.test.ts pins: school-zh/1, 3, 5, 7, 9 and 10 in the tune half.
    expect(reports.map((r) => [r.set, r.results.map((c) => c.id.split('/')[1]).join(' ')])).toEqual([
      ['school-zh.jsonl (jsonl), tune half', '1 3 5 7 9 10'],
      ['school-zh.jsonl (jsonl), check half', '2 4 6 8'],
    ]);
    for (const file of ['school-zh.tune.md', 'school-zh.check.json'])
      expect(existsSync(join(report, file))).toBe(true);
    const check = await memfadeAs('eval', SCHOOL, '--format', 'jsonl', '--json', '--half', 'check');
    expect(JSON.parse(check.stdout).conversations).toBe(4);
  });

  it('an unknown format is a usage error (exit 2)', async () => {
    const result = await memfade('eval', CRAFTED, '--format', 'csv');
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('expected one of locomo, kdconv, memorybank, dulemon, jsonl');
  });

  it('two files are two sets with two reports, never merged', async () => {
    const result = await memfade('eval', CRAFTED, CRAFTED, '--format', 'jsonl', '--json');
    expect(result.code).toBe(0);
    const reports = result.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(reports.map((r: { set: string; conversations: number }) => [r.set, r.conversations])).toEqual([
      ['crafted.jsonl (jsonl)', 3],
      ['crafted.jsonl (jsonl)', 3],
    ]);
    const markdown = await memfade('eval', CRAFTED, '--format', 'jsonl', '--limit', '1');
    expect(markdown.stdout.match(/^# memfade eval: /gm)).toHaveLength(1);
  });

  it('loads no MongoDB, BullMQ, Redis or PostgreSQL client (its start-up is part of every eval)', async () => {
    // Every CommonJS module the process loaded, written as it exits (ESM imports of those
    // packages load them through require's cache too).
    const hook = join(cwd.dir, 'loaded.cjs');
    const list = join(cwd.dir, 'loaded.json');
    writeFileSync(
      hook,
      `process.on('exit', () => require('node:fs').writeFileSync(${JSON.stringify(list)}, ` +
        'JSON.stringify(Object.keys(require.cache))));',
    );
    const result = await runScript(cli, ['eval', CRAFTED, '--format', 'jsonl', '--json'], {
      env: childEnv({ LOG_LEVEL: 'warn', MIN_INPUT_CHARS: '20', NODE_OPTIONS: `--require ${hook}` }),
      cwd: cwd.dir,
    });
    expect(result.code).toBe(0);
    const loaded = JSON.parse(readFileSync(list, 'utf8')) as string[];
    // The hook saw the process's packages: commander, which parses the command line, is among them.
    expect(loaded.some((path) => path.includes('/commander/'))).toBe(true);
    const clients = loaded.filter((path) => /\/(mongoose|mongodb|bullmq|ioredis|pg)\//.test(path));
    expect(clients).toEqual([]);
  });
});
