import { globSync, readFileSync } from 'node:fs';

/**
 * Which test files are unit tests and which are system tests, decided from what each file's text
 * does, so the split stays right as files move (vitest.config.ts reads it; docs/development.md).
 *
 * A system test starts or reaches a server: it takes the run's Redis, MongoDB-wire server or
 * PostgreSQL from the global setup (`inject`), starts one itself (the LLM emulator, a TCP proxy, an
 * embedded server, the harness's services), or spawns a process (the built worker or CLI). Every
 * other file is a unit test: the unit project starts no server and forbids listening on a socket
 * (unit-setup.ts), so a file this misjudges fails there, loudly, instead of passing slowly.
 */
const STARTS_A_SERVER = [
  /\binject\(/,
  /\bstart(LlmEmulator|RedisServer|MongoServer|PgliteServer|TcpProxy|Harness|Dashboard)\b/,
  // The fault suite's rows: faultTable's rig() starts a FaultRig (emulator, services, worker processes).
  /\b(FaultRig|faultTable)\b/,
  // Batch mode's tests: setUp of batch-mode-harness.ts starts the LLM emulator and the harness.
  /['"]\.\/batch-mode-harness\.js['"]/,
  /\brun(Script|Command)\b/,
  /['"]node:child_process['"]/,
  /\.listen\(/,
];

export const TEST_FILES = [
  'packages/*/src/**/*.test.ts',
  'apps/*/src/**/*.test.ts',
  'bench/src/**/*.test.ts',
  'infra/*.test.ts',
  'docs/*.test.ts',
];

/**
 * The files that take a minute or more (whole nights through worker processes), started before the
 * rest. Vitest starts the files it timed before longest first; without its record (a fresh clone,
 * CI) it starts the largest first, and one of these started last would be the run's tail.
 */
export const LONGEST_FILES = [
  'packages/system-tests/src/faults/',
  'packages/simulator/src/simulate.test.ts',
  'bench/src/bench.test.ts',
  'apps/cli/src/operations.test.ts',
  'packages/system-tests/src/nightly-run.test.ts',
];

export function startsAServer(source: string): boolean {
  return STARTS_A_SERVER.some((pattern) => pattern.test(source));
}

/** The test files under `root` (paths relative to it), split by `startsAServer`. */
export function splitTestFiles(root: string): { unit: string[]; system: string[] } {
  const files = globSync(TEST_FILES, { cwd: root, exclude: (name) => name === 'node_modules' });
  const unit: string[] = [];
  const system: string[] = [];
  for (const file of files.sort()) {
    (startsAServer(readFileSync(`${root}/${file}`, 'utf8')) ? system : unit).push(file);
  }
  return { unit, system };
}
