import { SHAPES, type Shape } from './chats.js';
import { describeFailure, fuzzChats } from './run.js';

/**
 * `pnpm fuzz [--seed N] [--per-shape K] [--shape NAME]`: seeded chats nobody wrote as a test case
 * through the pipeline (run.ts); prints each one not brought to a core memory. Exit 1 when any was not.
 */
function option(flag: string): string | undefined {
  const i = process.argv.indexOf(flag);
  return i < 0 ? undefined : process.argv[i + 1];
}

function whole(flag: string, fallback: number): number {
  const value = option(flag);
  const n = value === undefined ? fallback : Number(value);
  if (!Number.isInteger(n) || n < 0) throw new Error(`${flag}: expected a whole number, got ${value}`);
  return n;
}

const shape = option('--shape');
if (shape !== undefined && !SHAPES.includes(shape as Shape))
  throw new Error(`--shape: one of ${SHAPES.join(', ')}, got ${shape}`);
const report = await fuzzChats(
  whole('--seed', 1),
  whole('--per-shape', 20),
  shape ? [shape as Shape] : SHAPES,
);
for (const failure of report.failures) console.log(describeFailure(failure));
console.log(
  `seed ${report.seed}: ${report.chats} chats, ${report.failures.length} not brought to a core memory`,
);
process.exitCode = report.failures.length ? 1 : 0;
