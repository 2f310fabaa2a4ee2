import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { OfflineCompressor } from '@memfade/ai';
import { defaultConfig } from '@memfade/app';
import { benchEnv } from './env.js';
import { ALL_SETS, evaluateSets, type SetResult, setDiff, setTables } from './eval-sets.js';

// `pnpm bench:eval-sets [earlier.json]`: docs/eval/README.md's tables for the offline compressor on
// every set, and, given an earlier run's JSON, what moved since. BENCH_V2_DRAFT=with-v1 makes the
// offline compressor write the V2 draft with V1 (it does not by default: docs/eval), so V2 comes
// from the whole conversation (docs/design.md §4): against a default run's JSON it says what V2
// gains or loses by it.
const drafts = benchEnv.v2Draft === 'with-v1';
const compressor = new OfflineCompressor({ drafts });
const results = await evaluateSets(ALL_SETS, defaultConfig().policy, compressor);
await mkdir(benchEnv.resultsDir, { recursive: true });
const date = new Date().toISOString();
const file = join(benchEnv.resultsDir, `${date.replace(/[:.]/g, '-')}-eval-sets.json`);
await writeFile(file, `${JSON.stringify(results)}\n`);
for (const half of ['check', 'tune'] as const)
  console.log(`\n## ${half} half\n\n${setTables(results.filter((r) => r.half === half))}`);
const earlier = process.argv[2];
if (earlier) {
  const moved = setDiff(JSON.parse(await readFile(earlier, 'utf8')) as SetResult[], results);
  console.log(
    `\nSince ${earlier}:\n${moved.length ? moved.map((m) => `- ${m}`).join('\n') : '- nothing moved'}`,
  );
}
console.log(`\nresults: ${file}`);
