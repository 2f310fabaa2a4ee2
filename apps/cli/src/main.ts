#!/usr/bin/env node
import { Command, InvalidArgumentError } from 'commander';
import { demo } from './commands/demo.js';
import { importFile } from './commands/import.js';
import { runNow } from './commands/run-now.js';
import { status } from './commands/status.js';

function positiveInt(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError('expected a positive whole number');
  return n;
}

const program = new Command('memfade')
  .description('Progressive memory compression for companion chat apps: raw -> V1 (day 3) -> V2 (day 7).')
  .showHelpAfterError();

program
  .command('demo')
  .description('generate synthetic users, run one nightly cycle now on embedded services, print a summary')
  .option('--users <n>', 'synthetic users (half Chinese, half English)', positiveInt, 6)
  .action(async (options: { users: number }) => demo(options));

program
  .command('run-now')
  .description('enqueue a nightly run now (workers process it); exit 1 if --wait and any memory failed')
  .option('--wait', 'wait for the run to finish and print its summary', false)
  .option('--json', 'machine-readable output', false)
  .action(async (options: { wait: boolean; json: boolean }) => {
    process.exitCode = await runNow(options);
  });

program
  .command('status')
  .description('queue counts, memories per stage and the last runs')
  .option('--json', 'machine-readable output', false)
  .option('--runs <n>', 'how many recent runs', positiveInt, 10)
  .action(async (options: { json: boolean; runs: number }) => status(options));

program
  .command('import <file>')
  .description('load memories from a file (idempotent: existing memories are left alone)')
  .requiredOption('--format <format>', 'input format: memorybank')
  .option('--prefix <prefix>', 'user id prefix (default: the file name)')
  .action(async (file: string, options: { format: string; prefix?: string }) => importFile(file, options));

try {
  await program.parseAsync();
} catch (error) {
  console.error(`memfade: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 2;
}
