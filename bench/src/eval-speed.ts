import { spawn } from 'node:child_process';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type EvalConversation, type EvalFormat, loadDataset } from '@memfade/eval';
import { childEnv, uniqueName } from '@memfade/testing';

/**
 * The whole `memfade eval` of a set per 1,000 conversations (issue 26's target: under 5 s,
 * offline; docs/eval/README.md "Speed"). No shared set holds 1,000 conversations, so each is
 * written as JSONL with its conversations repeated under new ids up to `conversations`, and the
 * built CLI evaluates that file in a process of its own: start-up, loading, the pipeline, the
 * measures and the report, as an operator runs it. The offline compressor keeps nothing between
 * memories, so a repeated conversation costs what it did the first time.
 */

export interface EvalSet {
  format: EvalFormat;
  file: string;
  /** How docs/eval/README.md's tables name the set. */
  label: string;
}

export interface EvalSpeedResult {
  set: string;
  format: EvalFormat;
  /** Conversations in the set, and evaluated (the set repeated). */
  setConversations: number;
  conversations: number;
  /** Each run's wall time and CPU (user + system, every thread of the eval's process), seconds. */
  runs: { wallS: number; cpuS: number; peakRssMb: number }[];
  /** Medians over the runs, scaled to 1,000 conversations. */
  wallSPer1000: number;
  cpuSPer1000: number;
}

const CLI = fileURLToPath(new URL('../../apps/cli/dist/main.js', import.meta.url));
const SHARED = fileURLToPath(new URL('../../../shared/data/', import.meta.url));

/** The shared sets (../shared/data), as docs/eval/README.md evaluates them. */
export const SHARED_SETS: EvalSet[] = [
  { format: 'locomo', file: join(SHARED, 'locomo/locomo7.json'), label: 'LoCoMo' },
  { format: 'kdconv', file: join(SHARED, 'kdconv/travel_test.json'), label: 'KdConv travel' },
  { format: 'memorybank', file: join(SHARED, 'memorybank/memory_bank_cn.json'), label: 'MemoryBank zh' },
  { format: 'memorybank', file: join(SHARED, 'memorybank/memory_bank_en.json'), label: 'MemoryBank en' },
  { format: 'dulemon', file: join(SHARED, 'dulemon/samples.json'), label: 'DuLeMon' },
];

/** One conversation as a line of the JSONL format (packages/eval loaders.ts). */
export function jsonlLine(conversation: EvalConversation, id: string): string {
  const { thread, language, roleCard, userRole, topic, date, turns, facts, questions } = conversation;
  return JSON.stringify({
    id,
    thread,
    language,
    roleCard,
    userRole,
    topic,
    date: date?.toISOString(),
    turns,
    facts: facts.map((f) => f.text),
    questions: questions.map(({ question, answer, category }) => ({ question, answer, category })),
  });
}

/** Where the eval's process leaves its CPU and peak memory. */
const usageFile = (dir: string) => join(dir, 'usage.json');

/** A module that writes the process's CPU and peak memory to `out` as it exits (loaded with --require). */
const hook = (
  out: string,
) => `process.on('exit', () => require('node:fs').writeFileSync(${JSON.stringify(out)},
  JSON.stringify({ cpu: process.cpuUsage(), maxRssKb: process.resourceUsage().maxRSS })));`;

async function evalOnce(
  file: string,
  dir: string,
): Promise<{ wallS: number; cpuS: number; peakRssMb: number }> {
  const out = usageFile(dir);
  const started = performance.now();
  await new Promise<void>((resolve, reject) => {
    // The offline compressor's defaults, and no compile cache: an operator's first run compiles.
    const env = childEnv({
      MEMFADE_PROVIDER: 'offline',
      NODE_OPTIONS: `--require ${join(dir, 'hook.cjs')}`,
      NODE_COMPILE_CACHE: undefined,
    });
    const child = spawn(process.execPath, [CLI, 'eval', file, '--format', 'jsonl', '--json'], {
      env,
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk) => {
      stderr = (stderr + chunk).slice(-2_000);
    });
    child.on('error', reject);
    child.on('exit', (code) =>
      code === 0 ? resolve() : reject(new Error(`memfade eval exited ${code}: ${stderr}`)),
    );
  });
  const wallS = (performance.now() - started) / 1000;
  const usage = JSON.parse(await readFile(out, 'utf8')) as { cpu: NodeJS.CpuUsage; maxRssKb: number };
  return { wallS, cpuS: (usage.cpu.user + usage.cpu.system) / 1e6, peakRssMb: usage.maxRssKb / 1024 };
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};

export async function benchmarkEvalSpeed(
  sets: EvalSet[],
  options: { conversations: number; runs: number },
): Promise<EvalSpeedResult[]> {
  const dir = join(tmpdir(), uniqueName('memfade-eval-speed'));
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, 'hook.cjs'), hook(usageFile(dir)));
  try {
    const results: EvalSpeedResult[] = [];
    for (const set of sets) {
      const conversations = await loadDataset(set.file, set.format);
      const lines: string[] = [];
      for (let round = 0; lines.length < options.conversations; round++)
        for (const c of conversations.slice(0, options.conversations - lines.length))
          lines.push(jsonlLine(c, round ? `${c.id}#${round}` : c.id));
      const file = join(dir, `${basename(set.file).replace(/\.\w+$/, '')}.jsonl`);
      await writeFile(file, `${lines.join('\n')}\n`);
      const runs = [];
      for (let i = 0; i < options.runs; i++) runs.push(await evalOnce(file, dir));
      const per1000 = 1000 / lines.length;
      results.push({
        set: basename(set.file),
        format: set.format,
        setConversations: conversations.length,
        conversations: lines.length,
        runs,
        wallSPer1000: median(runs.map((r) => r.wallS)) * per1000,
        cpuSPer1000: median(runs.map((r) => r.cpuS)) * per1000,
      });
    }
    return results;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

export function evalSpeedTable(results: EvalSpeedResult[]): string {
  const row = (r: EvalSpeedResult) =>
    `| ${r.set} (${r.format}) | ${r.setConversations} | ${r.conversations} | ${r.wallSPer1000.toFixed(2)} | ` +
    `${r.cpuSPer1000.toFixed(2)} | ${Math.max(...r.runs.map((x) => x.peakRssMb)).toFixed(0)} |`;
  return [
    `### memfade eval, offline, per 1,000 conversations (median of ${results[0]?.runs.length ?? 0} runs)`,
    '',
    '| set | in the set | evaluated | wall s | CPU s | peak RSS MB |',
    '| --- | ---------- | --------- | ------ | ----- | ----------- |',
    ...results.map(row),
  ].join('\n');
}
