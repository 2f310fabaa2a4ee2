import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createCompressor, createQaModel } from '@memfade/ai';
import {
  type EvalFormat,
  evaluate,
  loadDataset,
  renderMarkdown,
  renderRetentionSvg,
  select,
} from '@memfade/eval';
import { registerSecrets } from '@memfade/runtime';
import { loadConfig } from '../env.js';
import { progressBar } from '../progress.js';

export interface EvalOptions {
  /** One format for every file, or one per file, in order. */
  format: EvalFormat[];
  limit?: number;
  sample?: number;
  seed?: number;
  json: boolean;
  report?: string;
}

/**
 * `memfade eval`: what V1 and V2 keep of a labelled set, with the configured compressor (and,
 * with a model provider, QA accuracy). It needs no Redis and no MongoDB: the memories live in
 * an in-memory store for the length of the command, so production data is never touched.
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
  const sets = await Promise.all(files.map((file, i) => loadDataset(file, formats[i] ?? formats[0]!)));
  const conversations = select(sets.flat(), options);
  const progress = progressBar();
  const report = await evaluate(conversations, {
    compressor,
    policy: config.policy,
    prices: config.prices,
    ...(qa && { qa }),
    onProgress: progress.update,
  });
  progress.done();
  const title = `memfade eval: ${[...new Set(formats)].join(' + ')} (${conversations.length} conversations)`;
  if (options.report) {
    await mkdir(options.report, { recursive: true });
    await writeFile(join(options.report, 'report.md'), renderMarkdown(report, title));
    await writeFile(join(options.report, 'report.json'), `${JSON.stringify(report, null, 2)}\n`);
    await writeFile(join(options.report, 'retention.svg'), renderRetentionSvg(report));
    process.stderr.write(
      `memfade: report written to ${options.report} (report.md, report.json, retention.svg)\n`,
    );
  }
  if (options.json) console.log(JSON.stringify(report));
  else console.log(renderMarkdown(report, title));
}
