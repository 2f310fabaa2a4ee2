import type { Fault } from '@memfade/testing';
import type { Product } from './product.js';
import type { Rng } from './rng.js';

/**
 * A night for one seed: how it calls the model, under which budget, with how many workers, and
 * what happens to it (docs/guarantees.md "The simulator"). Events fire at a time after the night
 * starts; a kill of the producer waits for the moment it holds memories and is not done.
 */
export interface NightSettings {
  mode: 'sync' | 'batch';
  provider: 'anthropic' | 'openai';
  /** NIGHT_BUDGET_TOKENS, 0 = none. */
  budgetTokens: number;
  workers: number;
}

export type FaultKind = Fault['kind'];

export type SimEvent =
  | { kind: 'kill'; atMs: number; target: 'any' | 'producer'; restartAfterMs: number }
  | { kind: 'faults'; atMs: number; fault: FaultKind; share: number; forMs: number }
  | { kind: 'edit'; atMs: number; memory: number }
  | { kind: 'delete'; atMs: number; memory: number; reinsertAfterMs?: number }
  /** `user` -1: an id the product never had (an operator's typo). */
  /** `duringCreate`: in batch mode, while the provider has accepted a batch and its create call has not returned. */
  | { kind: 'forget'; atMs: number; user: number; duringCreate?: boolean }
  | { kind: 'run-now'; atMs: number }
  | { kind: 'backfill'; atMs: number };

export interface Night {
  settings: NightSettings;
  events: SimEvent[];
}

const FAULTS: readonly FaultKind[] = [
  'status',
  'slow',
  'malformed',
  'schema',
  'wrong-language',
  'too-long',
  'truncate',
  'refuse',
  'expired',
  'canceled',
];

export function buildNight(random: Rng, product: Product): Night {
  const settings: NightSettings = {
    mode: random.pick(['sync', 'batch'] as const),
    provider: random.pick(['anthropic', 'openai'] as const),
    budgetTokens: random.chance(0.3) ? random.int(4, 20) * 1_000 : 0,
    workers: random.int(1, 3),
  };
  const users = new Set(product.memories.map((m) => m.userId)).size;
  const events: SimEvent[] = [];
  const count = random.int(1, 6);
  for (let i = 0; i < count; i++) {
    const atMs = random.int(0, 6_000);
    const kind = random.pick([
      'kill',
      'kill',
      'faults',
      'faults',
      'edit',
      'delete',
      'forget',
      'run-now',
      'backfill',
    ] as const);
    if (kind === 'kill')
      events.push({
        kind,
        atMs,
        target: random.pick(['any', 'producer'] as const),
        restartAfterMs: random.int(0, 2_500),
      });
    else if (kind === 'faults')
      events.push({
        kind,
        atMs,
        fault: random.pick(FAULTS),
        share: random.pick([0.2, 0.5, 1]),
        forMs: random.int(500, 5_000),
      });
    else if (kind === 'edit') events.push({ kind, atMs, memory: random.int(0, product.memories.length - 1) });
    else if (kind === 'delete')
      events.push({
        kind,
        atMs,
        memory: random.int(0, product.memories.length - 1),
        ...(random.chance(0.5) && { reinsertAfterMs: random.int(100, 3_000) }),
      });
    else if (kind === 'forget') {
      const user = random.chance(0.2) ? -1 : random.int(0, users - 1);
      // In batch mode, half the forgets come while the provider holds a batch's create call.
      const duringCreate = settings.mode === 'batch' && user >= 0 && random.chance(0.5);
      events.push({ kind, atMs, user, ...(duringCreate && { duringCreate }) });
    } else events.push({ kind, atMs });
  }
  // The producer killed twice (a crash loop at 03:00) is its own case: every fifth seed.
  if (random.chance(0.2))
    events.push(
      { kind: 'kill', atMs: 0, target: 'producer', restartAfterMs: 200 },
      { kind: 'kill', atMs: 0, target: 'producer', restartAfterMs: 200 },
    );
  return { settings, events: events.sort((a, b) => a.atMs - b.atMs) };
}

/** The emulator's fault for one request of the kind; statuses and delays picked by request index. */
export function faultOf(kind: FaultKind, index: number): Fault {
  if (kind === 'status')
    return { kind, status: ([429, 500, 503, 529] as const)[index % 4]!, retryAfterSeconds: 1 };
  if (kind === 'slow') return { kind, delayMs: 4_000 };
  return { kind } as Fault;
}
