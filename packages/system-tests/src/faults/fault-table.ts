import { mkdir, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { type Fault, until, WORKER_WAIT_MS } from '@memfade/testing';
import { afterAll, afterEach, expect } from 'vitest';
import type { Audit, Money } from './fault-checks.js';
import { FaultRig } from './fault-rig.js';

/**
 * What the fault suite's files share (fault-suite-sync.test.ts and
 * fault-suite-sync-money.test.ts: compress jobs; fault-suite.test.ts and fault-suite-money.test.ts:
 * batch mode; four files so that their rows run at once): the rig
 * each row starts, the audit every row ends with, and the table of rows each file writes to
 * test-artifacts/.
 */

/** 24 users × 11 days of demo memories: 264 memories, 192 of them due (V1, or V1 then V2). */
export const USERS = 24;
/** Model latency for every call, so that faults land while jobs are in flight. */
export const LATENCY: Fault = { kind: 'slow', delayMs: 150 };
/**
 * A row's timeout: room for its waits on the workers (WORKER_WAIT_MS each), which end as soon as
 * what they wait for holds.
 */
export const ROW_TIMEOUT_MS = 600_000;
/** How far into the run (completed jobs) each fault is injected. */
const MID_RUN = 50;

export const midRun = (r: FaultRig) =>
  until(async () => (await r.completedJobs()) >= MID_RUN, WORKER_WAIT_MS, r.tail.bind(r));

/** One line of the fault suite's table. */
export interface ScenarioReport {
  scenario: string;
  memories: number;
  due: number;
  faults: number;
  lost: number;
  appliedTwice: number;
  /** Memories whose stage input went to the model in more than one first request (sync call or batch line). */
  requestedTwice?: number;
  /** Tokens the provider billed (emulator) and the runs counted; equal when every paid line is counted. */
  billed?: number;
  counted?: number;
  /** Rows with a night budget: what the provider billed against it (tokens, dollars). */
  spent?: { tokens: number; usd: number };
  budget?: { tokens: number; usd: number };
  /** Due memories the budget left due for the next night. */
  leftByBudget?: number;
}

/**
 * One file's rows, called at the top of its describe: closes each row's rig and what it started
 * after the row, and writes the file's table to test-artifacts/`artifact`.md after the last.
 */
export function faultTable(artifact: string) {
  const table: ScenarioReport[] = [];
  const cleanups: (() => Promise<unknown>)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });
  afterAll(async () => {
    const shown = (n: number | undefined) => (n === undefined ? '-' : String(n));
    const lines = [
      '| scenario | memories | due | faults injected | lost | applied twice | requested twice | tokens billed | tokens counted | spent / budget |',
      '|---|---:|---:|---:|---:|---:|---:|---:|---:|---|',
      ...table.map(
        (r) =>
          `| ${r.scenario} | ${r.memories} | ${r.due} | ${r.faults} | ${r.lost} | ${r.appliedTwice} | ` +
          `${shown(r.requestedTwice)} | ${shown(r.billed)} | ${shown(r.counted)} | ${spentOf(r)} |`,
      ),
    ];
    console.log(`${artifact}\n${lines.join('\n')}`);
    const dir = fileURLToPath(new URL('../../../../test-artifacts/', import.meta.url));
    await mkdir(dir, { recursive: true });
    await writeFile(`${dir}${artifact}.md`, `${lines.join('\n')}\n`);
  });

  function record(scenario: string, audit: Audit, faults: number, money?: Money): void {
    const { memories, due, lost, appliedTwice, leftByBudget } = audit;
    table.push({ scenario, memories, due, faults, lost, appliedTwice, ...money, leftByBudget });
    expect(audit.problems).toEqual([]);
    expect(audit.lost, audit.lostDetails.join('\n')).toBe(0);
    expect(audit.appliedTwice).toBe(0);
    expect(audit.due).toBeGreaterThan(100);
    // docs/design.md invariant 9: no memory requested twice, every paid line counted at its price.
    if (money) {
      if (money.requestedTwice !== undefined)
        expect(money.requestedTwice, 'memories requested twice').toBe(0);
      expect(money.counted, 'tokens counted by the runs = tokens billed').toBe(money.billed);
    }
    // docs/design.md invariant 14: the budget is a ceiling on what can be billed.
    if (money?.budget && money.spent) {
      expect(money.spent.tokens, 'tokens billed <= NIGHT_BUDGET_TOKENS').toBeLessThanOrEqual(
        money.budget.tokens,
      );
      expect(money.spent.usd, 'dollars billed <= NIGHT_BUDGET_USD').toBeLessThanOrEqual(money.budget.usd);
    } else expect(audit.leftByBudget, 'memories left due by a budget, without one').toBe(0);
  }

  async function rig(
    options: Parameters<typeof FaultRig.start>[0] = {},
    seed: Parameters<FaultRig['seed']>[1] = {},
  ): Promise<FaultRig> {
    const started = await FaultRig.start(options);
    cleanups.push(() => started.close());
    await started.seed(USERS, seed);
    return started;
  }

  return { table, cleanups, record, rig };
}

/** A row's spend against its budget: tokens and dollars, with the memories it left due. */
function spentOf(r: ScenarioReport): string {
  if (!r.spent || !r.budget) return '-';
  const usd = (n: number) => `$${n.toFixed(4)}`;
  return (
    `${r.spent.tokens} / ${r.budget.tokens} tokens, ${usd(r.spent.usd)} / ${usd(r.budget.usd)}` +
    ` (${r.leftByBudget} left due)`
  );
}
