import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

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

/**
 * The production sources: apps, packages (with the test support packages when `withSupport`: the
 * emulator and the fault rig run in every test) and the benchmark.
 */
function productionFiles(withSupport: boolean): string[] {
  const packages = readdirSync(join(root, 'packages'))
    .filter((name) => withSupport || (name !== 'testing' && name !== 'system-tests'))
    .map((name) => `packages/${name}/src`);
  return ['apps', ...packages, 'bench/src'].flatMap((dir) => sources(dir));
}

/** The files a source file imports by a relative path (static, type-only, re-exports and import()). */
function localImports(file: string): string[] {
  const text = readFileSync(join(root, file), 'utf8');
  const specifiers = [...text.matchAll(/(?:from|import)\s*\(?\s*'(\.{1,2}\/[^']+)'/g)].map((m) => m[1]!);
  return specifiers.flatMap((specifier) => {
    const base = normalize(join(dirname(file), specifier)).replace(/\.js$/, '');
    const found = [`${base}.ts`, join(base, 'index.ts')].find((path) => existsSync(join(root, path)));
    return found ? [found] : [];
  });
}

/** Each set of files that import each other in a loop (Tarjan's strongly connected components). */
function importCircles(files: string[]): string[][] {
  const graph = new Map(files.map((file) => [file, localImports(file)]));
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const circles: string[][] = [];
  const visit = (file: string) => {
    index.set(file, index.size);
    low.set(file, index.get(file)!);
    stack.push(file);
    onStack.add(file);
    for (const next of graph.get(file) ?? []) {
      if (!graph.has(next)) continue;
      if (!index.has(next)) {
        visit(next);
        low.set(file, Math.min(low.get(file)!, low.get(next)!));
      } else if (onStack.has(next)) low.set(file, Math.min(low.get(file)!, index.get(next)!));
    }
    if (low.get(file) !== index.get(file)) return;
    const circle: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      circle.push(member);
    } while (member !== file);
    if (circle.length > 1 || (graph.get(file) ?? []).includes(file)) circles.push(circle.sort());
  };
  for (const file of files) if (!index.has(file)) visit(file);
  return circles;
}

describe('the house (docs/design.md §2)', () => {
  // The 400-line cap is a warning, not a failure (issue 38): it once shaped files more than their
  // responsibilities did. A file is split where what it does splits; one past the line is named here.
  afterAll(() => {
    for (const file of productionFiles(false)) {
      const lines = readFileSync(join(root, file), 'utf8').split('\n').length;
      if (lines > 400)
        console.warn(
          `house: ${file} has ${lines} lines (over 400: split it where its responsibilities split)`,
        );
    }
  });

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
    // The eval's models are the one use of ai: the doctor's prompt estimate is the application's.
    expect(
      sources('apps/cli/src').filter(
        (file) => importsOf(file).includes('ai') && !file.endsWith('commands/eval.ts'),
      ),
    ).toEqual([]);
  });

  it('queue is BullMQ plumbing and vector the stores: neither imports db nor the other', () => {
    expect(offenders('packages/queue/src', ['db', 'vector', 'app'])).toEqual([]);
    expect(offenders('packages/vector/src', ['db', 'queue', 'app'])).toEqual([]);
  });

  it('each room of packages/app imports only rooms drawn below it in docs/design.md §2', () => {
    // The rooms in the order the design draws them, top to bottom (its picture of packages/app/src).
    const design = readFileSync(join(root, 'docs/design.md'), 'utf8');
    const picture = design.slice(design.indexOf('packages/app/src/\n'), design.indexOf('packages/core '));
    const rooms = [...picture.matchAll(/^ {2}([a-z]+)\/ /gm)].map((m) => m[1]!);
    expect(rooms.length).toBeGreaterThan(5);
    const app = 'packages/app/src/';
    const roomOf = (file: string) => file.slice(app.length).split('/')[0]!;
    // Every folder of the application is drawn (index.ts, the API, stands above them all).
    const folders = new Set(
      sources(app)
        .map(roomOf)
        .filter((room) => !room.endsWith('.ts')),
    );
    expect([...folders].filter((room) => !rooms.includes(room))).toEqual([]);
    const upward = sources(app).flatMap((file) =>
      localImports(file)
        .filter((target) => target.startsWith(app) && roomOf(target) !== roomOf(file))
        .filter((target) => rooms.indexOf(roomOf(target)) <= rooms.indexOf(roomOf(file)))
        .map((target) => `${file} imports ${target}`),
    );
    expect(upward).toEqual([]);
  });

  it('no import circle in production code: files that import each other in a loop', () => {
    expect(importCircles(productionFiles(true))).toEqual([]);
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
