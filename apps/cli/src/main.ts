#!/usr/bin/env node
import { readFileSync } from 'node:fs';
import type { TargetStage } from '@memfade/core';
import { type EvalFormat, FORMATS } from '@memfade/eval';
import { Command, CommanderError, InvalidArgumentError } from 'commander';
import type { EvalOptions } from './commands/eval.js';

/**
 * Each command's module is imported when that command runs, not before: a start of the CLI costs
 * the imports of the one command it runs (`eval` loads no MongoDB, BullMQ or LanceDB client), and
 * `--help` or a usage error almost none.
 */
const commands = {
  backfill: () => import('./commands/backfill.js'),
  demo: () => import('./commands/demo.js'),
  doctor: () => import('./commands/doctor.js'),
  eval: () => import('./commands/eval.js'),
  import: () => import('./commands/import.js'),
  inspect: () => import('./commands/inspect.js'),
  maintenance: () => import('./commands/maintenance.js'),
  runNow: () => import('./commands/run-now.js'),
  status: () => import('./commands/status.js'),
};

function positiveInt(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError('expected a positive whole number');
  return n;
}

function days(value: string): number {
  const match = value.match(/^(\d+)d?$/);
  if (!match) throw new InvalidArgumentError('expected days, e.g. 3d');
  return Number(match[1]);
}

function stage(value: string): TargetStage {
  if (value !== 'v1' && value !== 'v2') throw new InvalidArgumentError('expected v1 or v2');
  return value;
}

/** A duration in ms from `90s`, `30m`, `2h`, `500ms` or a bare number of seconds. */
function duration(value: string): number {
  const match = value.match(/^(\d+(?:\.\d+)?)(ms|s|m|h)?$/);
  if (!match) throw new InvalidArgumentError('expected a duration, e.g. 90s, 30m or 2h');
  const unit = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000 }[match[2] ?? 's'] ?? 1_000;
  return Math.round(Number(match[1]) * unit);
}

function wholeNumber(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) throw new InvalidArgumentError('expected a whole number');
  return n;
}

/** Repeatable: each --format adds the format of the next file. */
function evalFormats(value: string, previous: EvalFormat[] = []): EvalFormat[] {
  const format = FORMATS.find((f) => f === value);
  if (!format) throw new InvalidArgumentError(`expected one of ${FORMATS.join(', ')}`);
  return [...previous, format];
}

function evalHalf(value: string): EvalOptions['half'] {
  if (value === 'tune' || value === 'check' || value === 'both' || value === 'all') return value;
  throw new InvalidArgumentError('expected one of both, tune, check, all');
}

const collect = (value: string, previous: string[]) => [...previous, value];

const { version } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
  version: string;
};

const program = new Command('memfade')
  .description('Progressive memory compression for companion chat apps: raw -> V1 (day 3) -> V2 (day 7).')
  .version(version)
  .showHelpAfterError()
  // Commander's own exits (usage errors, help, version) come back here as errors, before any
  // command is added so that every command inherits it: usage errors exit 2 like the others.
  .exitOverride();

program
  .command('demo')
  .description('generate synthetic users, run one nightly cycle now on embedded services, print a summary')
  .option('--users <n>', 'synthetic users (half Chinese, half English)', positiveInt, 6)
  .action(async (options: { users: number }) => (await commands.demo()).demo(options));

program
  .command('run-now')
  .description(
    'enqueue a nightly run now (workers process it); with --wait: exit 1 if any memory failed, 5 if memories were due and none ran',
  )
  .option('--wait', 'show progress until the run has finished, then its summary', false)
  .option(
    '--timeout <duration>',
    'with --wait: stop waiting after this long (e.g. 30m, 2h; exit 3)',
    duration,
  )
  .option('--json', 'machine-readable output', false)
  .action(async (options: { wait: boolean; json: boolean; timeout?: number }) => {
    process.exitCode = await (await commands.runNow()).runNow(options);
  });

program
  .command('status')
  .description('queue counts, memories per stage and the last runs')
  .option('--json', 'machine-readable output', false)
  .option('--runs <n>', 'how many recent runs', positiveInt, 10)
  .option('--user <userId>', "that user's model cost in each of their recent runs (the per-user ledger)")
  .action(async (options: { json: boolean; runs: number; user?: string }) =>
    (await commands.status()).status(options),
  );

program
  .command('doctor')
  .description(
    "check the configured database, Redis and vector store before a first night: fields, dates, role cards, languages, sizes, due memories, tonight's cost, indexes; writes nothing; exit 1 when memfade cannot work",
  )
  .option('--json', 'machine-readable output', false)
  .option('--sample <n>', 'memories to sample', positiveInt, 500)
  .option(
    '--create-indexes',
    'first create the missing indexes memfade relies on, on your collections too (the only command that does)',
    false,
  )
  .action(async (options: { json: boolean; sample: number; createIndexes: boolean }) => {
    process.exitCode = await (await commands.doctor()).doctor(options);
  });

program
  .command('import <file>')
  .description('load memories from a file (idempotent: existing memories are left alone)')
  .requiredOption('--format <format>', 'input format: memorybank')
  .option('--prefix <prefix>', 'user id prefix (default: the file name)')
  .action(async (file: string, options: { format: string; prefix?: string }) =>
    (await commands.import()).importFile(file, options),
  );

program
  .command('backfill')
  .description(
    'enqueue the due memories of some users (or all) now; with --wait: exit 1 if any memory failed, 5 if memories were due and none ran',
  )
  .option('--user <id>', 'a user whose memories to take (repeatable)', collect, [])
  .option('--all', 'every user', false)
  .option('--stage <stage>', 'only memories going to this stage: v1 or v2', stage)
  .option('--older-than <days>', 'only memories at least this old, e.g. 3d', days)
  .option('--limit <n>', 'at most this many memories', positiveInt)
  .option(
    '--dry-run',
    'print what would be enqueued (counts per stage, first ids) and enqueue nothing',
    false,
  )
  .option('--wait', 'show progress until the run has finished, then its summary', false)
  .option(
    '--timeout <duration>',
    'with --wait: stop waiting after this long (e.g. 30m, 2h; exit 3)',
    duration,
  )
  .option('--json', 'machine-readable output', false)
  .action(async (options) => {
    process.exitCode = await (await commands.backfill()).backfill(options);
  });

program
  .command('inspect <memoryId>')
  .description(
    'raw / V1 / V2 of one memory side by side, with lengths, ratios, model, tokens, vector status, last error',
  )
  .option('--json', 'machine-readable output', false)
  .action(async (memoryId: string, options: { json: boolean }) => {
    process.exitCode = await (await commands.inspect()).inspect(memoryId, options);
  });

program
  .command('retry-failed')
  .description('put failed compress jobs back in the queue')
  .option('--stage <stage>', 'only jobs going to this stage: v1 or v2', stage)
  .option('--json', 'machine-readable output', false)
  .action(async (options: { stage?: TargetStage; json: boolean }) =>
    (await commands.maintenance()).retryFailed(options),
  );

program
  .command('rollback <memoryId>')
  .description(
    'take a memory back to raw or V1 (the dropped results stay on it); it is due again at the next run',
  )
  .requiredOption('--to <stage>', 'raw or v1', (value: string) => {
    if (value !== 'raw' && value !== 'v1') throw new InvalidArgumentError('expected raw or v1');
    return value;
  })
  .action(async (memoryId: string, options: { to: 'raw' | 'v1' }) => {
    process.exitCode = await (await commands.maintenance()).rollback(memoryId, options);
  });

program
  .command('reindex')
  .description('re-embed the searchable text of some users (or all) into the vector store')
  .option('--user <id>', 'a user whose memories to re-embed (repeatable)', collect, [])
  .option('--all', 'every memory', false)
  .option(
    '--prune',
    'sweep the whole store: delete records of deleted memories and records whose text is out of date',
    false,
  )
  .action(async (options: { user: string[]; all: boolean; prune: boolean }) =>
    (await commands.maintenance()).reindex(options),
  );

program
  .command('forget')
  .description(
    "remove memfade's derived data of a user or a memory (vector records and the store's older copies, " +
      'stage results, run errors, compress jobs, batch requests and provider batch files) and print a ' +
      'receipt of each place checked; never the content; exit 1 if anything is left or could not be checked',
  )
  .option('--user <id>', 'every memory of this user')
  .option('--memory <id>', 'this memory')
  .option('--dry-run', 'print what would be removed and remove nothing', false)
  .option(
    '--allow-unknown',
    'forget a --user with no memory and no vector record anyway (else exit 2: a mistyped id?)',
    false,
  )
  .option('--json', 'machine-readable output', false)
  .action(
    async (options: {
      user?: string;
      memory?: string;
      dryRun: boolean;
      json: boolean;
      allowUnknown: boolean;
    }) => {
      process.exitCode = await (await commands.maintenance()).forgetCommand(options);
    },
  );

program
  .command('eval <files...>')
  .description(
    'what V1 and V2 keep of labelled sets and how they read, one report per set (in memory: no Redis, no MongoDB)',
  )
  .requiredOption(
    '--format <format>',
    `input format: ${FORMATS.join(', ')} (repeat it to give each file its own, in order)`,
    evalFormats,
  )
  .option('--limit <n>', 'at most this many conversations', positiveInt)
  .option('--sample <n>', 'a deterministic random sample of this many conversations', positiveInt)
  .option('--seed <n>', 'the seed of --sample', wholeNumber, 1)
  .option('--show <n>', 'the best and the worst n memories quoted per language (raw, V1, V2)', positiveInt, 3)
  .option('--json', "each set's report as one line of JSON on stdout", false)
  .option('--report <dir>', 'write <set>.md, <set>.json and <set>.svg per set into this folder')
  .option(
    '--half <half>',
    'both: the tune and the check half of each set, two reports; tune or check: one of them; all: the whole set',
    evalHalf,
    'both',
  )
  .action(async (files: string[], options: EvalOptions) =>
    (await commands.eval()).evalCommand(files, options),
  );

try {
  await program.parseAsync();
} catch (error) {
  if (error instanceof CommanderError) {
    // Commander has printed the message (or the help, or the version) already.
    process.exitCode = error.exitCode === 0 ? 0 : 2;
  } else {
    console.error(`memfade: ${error instanceof Error ? error.message : String(error)}`);
    process.exitCode = 2;
  }
}
