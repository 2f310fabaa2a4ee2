import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const main = fileURLToPath(new URL('../dist/main.js', import.meta.url));

describe('memfade demo (the built binary)', () => {
  it('runs a nightly cycle on embedded services and prints the summary and side-by-side text', async () => {
    const env = { ...process.env, REDIS_URL: '', MONGODB_URI: '', LOG_LEVEL: 'warn' };
    const { stdout } = await promisify(execFile)(process.execPath, [main, 'demo', '--users', '4'], {
      env,
      timeout: 90_000,
    });
    expect(stdout).toMatch(/started redis-server on redis:\/\/127\.0\.0\.1:\d+/);
    expect(stdout).toMatch(/4 users, 44 memories aged 0\.\.10 days/);
    // 8 of 11 days per user are due for V1; 4 of them are old enough for V2 as well.
    expect(stdout).toMatch(/^raw\s+44\s+12\s*$/m);
    expect(stdout).toMatch(/^v1\s+0\s+16\s*$/m);
    expect(stdout).toMatch(/^v2\s+0\s+16\s*$/m);
    expect(stdout).toContain('Chinese memory demo-zh-');
    expect(stdout).toContain('English memory demo-en-');
    expect(stdout).toMatch(/V2 \(\d+ chars/);
    // The showcased memories read as memories: V2 visibly shorter than V1, the persona named, the
    // user's feeling as the residue, key points without a role label (issue 26 item 4).
    const lengths = [...stdout.matchAll(/V1 \((\d+) chars.*V2 \((\d+) chars/g)];
    expect(lengths).toHaveLength(2);
    for (const [, v1, v2] of lengths) expect(Number(v2)).toBeLessThanOrEqual(Number(v1) * 0.8);
    expect(stdout).toMatch(/小暖说|阿澈说|Juno|Theo/u);
    expect(stdout).toMatch(/^V2 residue: /m);
    for (const [line] of stdout.matchAll(/^V1 key point: .*$/gm))
      expect(line).not.toMatch(/user:|assistant:/);
  });
});
