import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { LONGEST_FILES, splitTestFiles, startsAServer } from './test-projects.js';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const samples: { system: string[]; unit: string[] } = JSON.parse(
  readFileSync(new URL('./test-projects.samples.json', import.meta.url), 'utf8'),
);

describe('the unit and system projects', () => {
  // The samples are in a JSON file: written here, they would make this file a system test.
  it('a file that reaches or starts a server, or spawns a process, is a system test', () => {
    for (const source of samples.system) expect(startsAServer(source), source).toBe(true);
    for (const source of samples.unit) expect(startsAServer(source), source).toBe(false);
  });

  it('splits every test file of the repository into exactly one of them', () => {
    const { unit, system } = splitTestFiles(root);
    expect(unit.filter((file) => system.includes(file))).toEqual([]);
    expect(unit).toContain('packages/testing/src/test-projects.test.ts');
    expect(unit).toContain('packages/core/src/stage-policy.test.ts');
    expect(system).toContain('packages/system-tests/src/faults/fault-suite.test.ts');
    expect(system).toContain('packages/system-tests/src/faults/fault-suite-money.test.ts');
    expect(system).toContain('packages/system-tests/src/batch-mode-round.test.ts');
    expect(system).toContain('packages/system-tests/src/batch-mode-crashes.test.ts');
    expect(system).toContain('packages/system-tests/src/batch-mode-memories.test.ts');
    expect(system).toContain('apps/cli/src/commands.test.ts');
    expect([...unit, ...system].every((file) => file.endsWith('.test.ts'))).toBe(true);
  });

  it('names as the longest only system files that exist (a renamed one would start last again)', () => {
    const { system } = splitTestFiles(root);
    for (const path of LONGEST_FILES)
      expect(
        system.some((file) => file.startsWith(path)),
        path,
      ).toBe(true);
  });
});
