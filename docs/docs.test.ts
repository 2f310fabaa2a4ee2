import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { envSchema } from '@memfade/app';
import { describe, expect, it } from 'vitest';

/** README.md and docs/*.md: readable in a terminal, and true to the code's settings and files. */

const root = fileURLToPath(new URL('..', import.meta.url));
const MAX_LINE = 120;

async function documents(): Promise<{ file: string; text: string }[]> {
  const docs = (await readdir(join(root, 'docs'))).filter((name) => name.endsWith('.md'));
  const files = ['README.md', ...docs.map((name) => `docs/${name}`)];
  return Promise.all(files.map(async (file) => ({ file, text: await readFile(join(root, file), 'utf8') })));
}

/** Names that look like environment variables (`SOME_NAME`), wherever they are written. */
function variableNames(text: string): string[] {
  return [...new Set(text.match(/\b[A-Z][A-Z0-9]*_[A-Z0-9_]*[A-Z0-9]\b/g) ?? [])];
}

describe('README.md and docs/', () => {
  it(`have no line over ${MAX_LINE} characters (a URL may run past)`, async () => {
    const long: string[] = [];
    for (const { file, text } of await documents())
      text.split('\n').forEach((line, index) => {
        // Code points, as a terminal shows them; a URL cannot be wrapped, so it does not count.
        const withoutUrls = line.replace(/<?https?:\/\/\S+/g, '');
        if ([...withoutUrls].length > MAX_LINE) long.push(`${file}:${index + 1} (${[...line].length})`);
      });
    expect(long).toEqual([]);
  });

  it('name only settings that exist: the env schema, the compose files, or for BENCH_* the benchmark', async () => {
    const known = new Set(Object.keys(envSchema.shape));
    // What a compose file interpolates (`${POSTGRES_PASSWORD:?...}`) is a setting of the deployment.
    for (const file of (await readdir(join(root, 'infra'))).filter((f) => /^compose.*\.yaml$/.test(f)))
      for (const [, name] of (await readFile(join(root, 'infra', file), 'utf8')).matchAll(
        /\$\{([A-Z0-9_]+)/g,
      ))
        known.add(name!);
    const benchFiles = await readdir(join(root, 'bench/src'), { recursive: true });
    let bench = '';
    for (const file of benchFiles.filter((f) => f.endsWith('.ts')))
      bench += await readFile(join(root, 'bench/src', file), 'utf8');
    const unknown: string[] = [];
    for (const { file, text } of await documents())
      for (const name of variableNames(text))
        if (name.startsWith('BENCH_') ? !bench.includes(name) : !known.has(name))
          unknown.push(`${file}: ${name}`);
    expect(unknown).toEqual([]);
  });

  it('docs/configuration.md describes every setting of the env schema', async () => {
    const configuration = await readFile(join(root, 'docs/configuration.md'), 'utf8');
    const described = new Set(variableNames(configuration));
    expect(Object.keys(envSchema.shape).filter((name) => !described.has(name))).toEqual([]);
  });

  it('link only to files that exist', async () => {
    const missing: string[] = [];
    for (const { file, text } of await documents()) {
      const base = file.startsWith('docs/') ? 'docs' : '.';
      for (const [, target] of text.matchAll(/\]\(([^)#\s]+)(#[^)]*)?\)/g)) {
        if (/^[a-z]+:/.test(target!)) continue;
        await readFile(join(root, base, target!)).catch(() => missing.push(`${file}: ${target}`));
      }
    }
    expect(missing).toEqual([]);
  });
});
