import { mkdir, writeFile } from 'node:fs/promises';
import { runSeed, type SeedResult } from './night.js';
import { startServers } from './world.js';

/**
 * `pnpm simulate [--seed N | --seeds K [--from S]] [--json FILE] [--logs DIR]`: seeded nights (night.ts), each
 * checked against the invariants (checks.ts). A failing seed prints its product, night and
 * schedule; `pnpm simulate --seed N` replays it. Exit 1 when any seed found something.
 */
function parseArgs(argv: string[]): { seeds: number[]; json?: string; logDir?: string } {
  const value = (flag: string) => {
    const i = argv.indexOf(flag);
    if (i < 0) return undefined;
    const v = argv[i + 1];
    if (v === undefined) throw new Error(`${flag} needs a value`);
    return v;
  };
  const number = (flag: string, fallback: number) => {
    const v = value(flag);
    if (v === undefined) return fallback;
    const n = Number(v);
    if (!Number.isInteger(n) || n < 0) throw new Error(`${flag}: expected a whole number, got ${v}`);
    return n;
  };
  const json = value('--json');
  const logDir = value('--logs');
  const files = { ...(json && { json }), ...(logDir && { logDir }) };
  if (value('--seed') !== undefined) return { seeds: [number('--seed', 0)], ...files };
  const from = number('--from', 1);
  const count = number('--seeds', 5);
  return { seeds: Array.from({ length: count }, (_, i) => from + i), ...files };
}

/** Kills that landed at the moment they waited for (a batch's, the outbox drain's), and workers stopped. */
const moments = ({ batchKills, drainKills, stops, freezes }: SeedResult) =>
  [batchKills && `${batchKills} at a batch's moment`, drainKills && `${drainKills} while draining`]
    .filter(Boolean)
    .map((part) => `, kills ${part}`)
    .join('') +
  (stops ? `, ${stops} stopped (SIGTERM)` : '') +
  (freezes ? `, ${freezes} frozen (SIGSTOP)` : '');

/** The night's MongoDB and Redis outages for the workers (schedule.ts mongoCut, redisCut). */
function cutOf({ night, restarts }: SeedResult): string {
  const cuts = (kind: 'mongo-cut' | 'redis-cut') =>
    night.events
      .flatMap((e) =>
        e.kind === kind
          ? [`${e.forMs} ms at ${e.atMs} ms${'lost' in e && e.lost ? ' (data lost)' : ''}`]
          : [],
      )
      .join(' and ');
  const mongo = cuts('mongo-cut');
  const redis = cuts('redis-cut');
  const exited = restarts ? ` (${restarts} workers exited, started again)` : '';
  return `MongoDB cut ${mongo || 'none'}${redis ? `, Redis cut ${redis}` : ''}${exited}`;
}

function describe(result: SeedResult): string {
  const { seed, product, night, findings, durationMs } = result;
  const head = `seed ${seed}: ${product.memories} memories, ${product.shape} shape, createdAt ${product.createdAtFormat}, turn time ${product.turnAt}${product.sendersById ? ', turns sent by id' : ''}; ${night.settings.mode} ${night.settings.provider}, ${night.settings.workers} workers, budget ${night.settings.budgetTokens ? `${night.settings.budgetTokens} (left ${result.budgetLeft} due)` : 'none'}, ${night.settings.perRequest} a request, user cap ${night.settings.userBudgetUsd ? `$${night.settings.userBudgetUsd}` : 'none'}, ${cutOf(result)}${night.settings.model ? `, model ${night.settings.model}` : ''}${moments(result)} (${(durationMs / 1000).toFixed(1)} s)`;
  if (findings.length === 0) return `${head}: clean`;
  const schedule = night.events.map((e) => `    ${JSON.stringify(e)}`).join('\n');
  const found = findings
    .slice(0, 20)
    .map((f) => `    [${f.check}] ${f.detail.split('\n')[0]}`)
    .join('\n');
  return `${head}: ${findings.length} findings\n  schedule:\n${schedule}\n  found:\n${found}\n  replay: pnpm simulate --seed ${seed}`;
}

async function main(): Promise<number> {
  const { seeds, json, logDir } = parseArgs(process.argv.slice(2));
  // Worker logs are appended to files in it as they come: the folder must be there first.
  if (logDir) await mkdir(logDir, { recursive: true });
  const servers = await startServers();
  const results: SeedResult[] = [];
  try {
    for (const seed of seeds) {
      const result = await runSeed(servers, seed, { ...(logDir && { logDir }) });
      results.push(result);
      console.log(describe(result));
    }
  } finally {
    await servers.close();
  }
  const failed = results.filter((r) => r.findings.length > 0);
  const checks = new Set(failed.flatMap((r) => r.findings.map((f) => f.check)));
  console.log(
    `${results.length} seeds, ${results.length - failed.length} clean; ${failed.length} with findings (${[...checks].join(', ') || 'none'})`,
  );
  if (json) await writeFile(json, JSON.stringify(results, null, 2));
  return failed.length > 0 ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (error) => {
    console.error(`memfade simulate: ${(error as Error).message}`);
    process.exit(2);
  },
);
