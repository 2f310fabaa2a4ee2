import { mkdir, writeFile } from 'node:fs/promises';
import { basename, extname, join } from 'node:path';
import { createCompressor, createQaModel } from '@memfade/ai';
import {
  type EvalFormat,
  type EvalReport,
  evaluate,
  HALVES,
  type Half,
  inHalf,
  loadDataset,
  renderMarkdown,
  renderRetentionSvg,
  select,
} from '@memfade/eval';
import { registerSecrets } from '@memfade/runtime';
import { loadConfig } from '../env.js';
import { progressBar } from '../progress-bar.js';

export interface EvalOptions {
  /** One format for every file, or one per file, in order. */
  format: EvalFormat[];
  limit?: number;
  sample?: number;
  seed?: number;
  /** The best and the worst this many memories, quoted in each report. */
  show: number;
  json: boolean;
  report?: string;
  /** Which halves of each set (split.ts): both by default, each its own report; `all` the whole set as one. */
  half: Half | 'both' | 'all';
}

/** A file name for each set's report: the input's name, made unique. */
function slugs(files: string[]): string[] {
  const seen = new Map<string, number>();
  return files.map((file) => {
    const name = basename(file, extname(file)).replace(/[^\w.-]+/g, '-') || 'set';
    const n = (seen.get(name) ?? 0) + 1;
    seen.set(name, n);
    return n === 1 ? name : `${name}-${n}`;
  });
}

async function writeReport(dir: string, name: string, report: EvalReport): Promise<void> {
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, `${name}.md`), renderMarkdown(report));
  await writeFile(join(dir, `${name}.json`), `${JSON.stringify(report, null, 2)}\n`);
  await writeFile(join(dir, `${name}.svg`), renderRetentionSvg(report));
  process.stderr.write(`memfade: ${report.set}: report written to ${dir} (${name}.md, .json, .svg)\n`);
}

/**
 * `memfade eval`: what V1 and V2 keep of labelled sets and how they read, with the configured
 * compressor (and, with a model provider, QA accuracy judged by EVAL_JUDGE_MODEL). Each file is
 * one set with its own report: sets are never merged. It needs no Redis and no MongoDB: the
 * memories live in an in-memory store for the length of the command.
 */
export async function evalCommand(files: string[], options: EvalOptions): Promise<void> {
  const formats = options.format;
  if (formats.length !== 1 && formats.length !== files.length) {
    throw new Error(`--format: give one format for all files or one per file (${files.length} files)`);
  }
  const config = loadConfig();
  if (config.provider.provider !== 'offline') registerSecrets(config.provider.apiKey);
  const compressor = createCompressor(config.provider);
  const qa = createQaModel(config.provider);
  const judge =
    config.provider.provider !== 'offline' && config.evalJudgeModel
      ? createQaModel({ ...config.provider, model: config.evalJudgeModel })
      : qa;
  const sets = await Promise.all(files.map((file, i) => loadDataset(file, formats[i] ?? formats[0]!)));
  const names = slugs(files);
  const reports: EvalReport[] = [];
  for (const [i, set] of sets.entries()) {
    const format = formats[i] ?? formats[0]!;
    const selected = select(set, options);
    // The tune and the check half are two sets, never merged (docs/eval/README.md).
    const halves = options.half === 'all' ? [undefined] : options.half === 'both' ? HALVES : [options.half];
    for (const half of halves) {
      const conversations = half ? inHalf(selected, half) : selected;
      const progress = progressBar();
      const report = await evaluate(conversations, {
        compressor,
        policy: config.policy,
        set: `${basename(files[i]!)} (${format})${half ? `, ${half} half` : ''}`,
        prices: config.prices,
        samples: options.show,
        ...(qa && { qa }),
        ...(judge && { judge }),
        onProgress: progress.update,
      });
      progress.done();
      reports.push(report);
      if (options.report) await writeReport(options.report, `${names[i]!}${half ? `.${half}` : ''}`, report);
    }
  }
  // One line of JSON per set (JSON Lines): a single set prints one JSON document.
  if (options.json) for (const report of reports) console.log(JSON.stringify(report));
  else console.log(reports.map((report) => renderMarkdown(report)).join('\n'));
}
