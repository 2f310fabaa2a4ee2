import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

/**
 * The alert rules (infra/prometheus/rules.yml, docs/operations.md "Alerts") checked and unit-tested
 * by Debian's promtool (scripts/lib/bootstrap.sh ensure_prometheus), and held to what the docs and
 * the tests promise: every alert has a firing and a non-firing case, and a section of the docs.
 */

const root = fileURLToPath(new URL('..', import.meta.url));
const prometheus = join(root, 'infra/prometheus');
const run = promisify(execFile);
const { parse: parseYaml } = createRequire(join(root, 'packages/app/package.json'))('yaml') as {
  parse(text: string): unknown;
};

interface Rules {
  groups: { rules: { alert?: string; record?: string; annotations?: { runbook?: string } }[] }[];
}
interface RuleTests {
  tests: { alert_rule_test?: { alertname: string; exp_alerts?: unknown[] }[] }[];
}

const alerts = async () =>
  ((parseYaml(await readFile(join(prometheus, 'rules.yml'), 'utf8')) as Rules).groups ?? [])
    .flatMap((group) => group.rules)
    .filter((rule) => rule.alert);

describe('infra/prometheus/rules.yml', () => {
  it('passes promtool check rules', async () => {
    const { stdout } = await run('promtool', ['check', 'rules', 'rules.yml'], { cwd: prometheus });
    expect(stdout).toMatch(/SUCCESS: \d+ rules found/);
  });

  it('passes promtool test rules (rules.test.yml)', async () => {
    const result = await run('promtool', ['test', 'rules', 'rules.test.yml'], { cwd: prometheus }).catch(
      (error: { stdout?: string; stderr?: string }) => ({ stdout: `${error.stdout}${error.stderr}` }),
    );
    expect(result.stdout).toContain('SUCCESS');
    expect(result.stdout).not.toContain('FAILED');
  }, 120_000);

  it('tests every alert firing and not firing', async () => {
    const tests = parseYaml(await readFile(join(prometheus, 'rules.test.yml'), 'utf8')) as RuleTests;
    const cases = tests.tests.flatMap((t) => t.alert_rule_test ?? []);
    const names = (await alerts()).map((rule) => rule.alert!);
    expect(names.length).toBeGreaterThanOrEqual(14);
    for (const name of names) {
      const mine = cases.filter((c) => c.alertname === name);
      expect(
        mine.some((c) => (c.exp_alerts ?? []).length > 0),
        `${name} firing`,
      ).toBe(true);
      expect(
        mine.some((c) => (c.exp_alerts ?? []).length === 0),
        `${name} not firing`,
      ).toBe(true);
    }
  });

  it('points every alert at its section of docs/operations.md', async () => {
    const docs = await readFile(join(root, 'docs/operations.md'), 'utf8');
    const anchors = new Set(
      [...docs.matchAll(/^#{2,4} (.+)$/gm)].map((m) => m[1]!.toLowerCase().replace(/[^a-z0-9]+/g, '')),
    );
    for (const rule of await alerts()) {
      const runbook = rule.annotations?.runbook ?? '';
      expect(runbook, rule.alert).toMatch(/^docs\/operations\.md#/);
      expect(anchors, `${rule.alert}: ${runbook}`).toContain(runbook.split('#')[1]);
    }
  });
});
