import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// The layout docs/design.md §2 describes, checked on the production sources (tests may reach
// anything they need to set a scene up).
const root = fileURLToPath(new URL('..', import.meta.url));

function sources(dir: string): string[] {
  return readdirSync(join(root, dir)).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(join(root, path)).isDirectory())
      return name === 'node_modules' || name === 'dist' ? [] : sources(path);
    return path.endsWith('.ts') && !path.endsWith('.test.ts') ? [path] : [];
  });
}

const importsOf = (file: string) =>
  [...readFileSync(join(root, file), 'utf8').matchAll(/from '@memfade\/([a-z-]+)(?:\/[a-z/-]+)?'/g)].map(
    (m) => m[1] as string,
  );

/** Each file of `dir` that imports one of `packages`, with what it imports. */
function offenders(dir: string, packages: string[]): string[] {
  return sources(dir).flatMap((file) =>
    importsOf(file)
      .filter((name) => packages.includes(name))
      .map((name) => `${file} imports @memfade/${name}`),
  );
}

describe('the house (docs/design.md §2)', () => {
  it('apps reach storage, queues and vector stores only through the application package', () => {
    expect(offenders('apps', ['db', 'queue', 'vector'])).toEqual([]);
    // The worker and the dashboard are nothing but entry points; the CLI also runs the eval and
    // the demo's data generator, tools of their own (packages/eval, packages/samples).
    const entryPointsOnly = ['app', 'core', 'runtime'];
    const beyond = (dir: string, allowed: string[]) =>
      sources(dir).flatMap((file) =>
        importsOf(file)
          .filter((name) => !allowed.includes(name))
          .map((name) => `${file} imports @memfade/${name}`),
      );
    expect(beyond('apps/worker/src', entryPointsOnly)).toEqual([]);
    expect(beyond('apps/dashboard/src', entryPointsOnly)).toEqual([]);
    expect(beyond('apps/cli/src', [...entryPointsOnly, 'ai', 'eval', 'samples'])).toEqual([]);
  });

  it('queue is BullMQ plumbing and vector the stores: neither imports db nor the other', () => {
    expect(offenders('packages/queue/src', ['db', 'vector', 'app'])).toEqual([]);
    expect(offenders('packages/vector/src', ['db', 'queue', 'app'])).toEqual([]);
  });

  it('no production file is over 400 lines', () => {
    const production = readdirSync(join(root, 'packages'))
      .filter((name) => name !== 'testing' && name !== 'system-tests')
      .map((name) => `packages/${name}/src`);
    const long = ['apps', ...production, 'bench/src'].flatMap((dir) =>
      sources(dir)
        .map((file) => ({ file, lines: readFileSync(join(root, file), 'utf8').split('\n').length }))
        .filter(({ lines }) => lines > 400)
        .map(({ file, lines }) => `${relative(root, join(root, file))}: ${lines} lines`),
    );
    expect(long).toEqual([]);
  });

  it('every comment that cites the design cites docs/design.md', () => {
    const stray = ['apps', 'packages', 'bench/src'].flatMap((dir) =>
      sources(dir).filter((file) =>
        /\bDESIGN\b(?!\.md)|DESIGN\.md/.test(readFileSync(join(root, file), 'utf8')),
      ),
    );
    expect(stray).toEqual([]);
  });
});
