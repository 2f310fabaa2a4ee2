import type { PriceTable } from '@memfade/core';
import type { z } from 'zod';

/**
 * Checks of settings beyond their own type, run by the env schema (env-schema.ts) so that every bad
 * setting is named in one error before anything is created or connected (docs/configuration.md).
 */

/** A setting's check as a zod refinement: the message says what is wrong, the path names the setting. */
export const problem =
  (check: (value: string) => string | undefined) => (value: string, ctx: z.RefinementCtx) => {
    const message = check(value);
    if (message) ctx.addIssue({ code: 'custom', message });
  };

/** The settings the cross-setting checks read: they run only once these parsed. */
const CROSS_CHECKED = [
  'VECTOR_STORE',
  'PGVECTOR_URL',
  'NIGHT_BUDGET_USD',
  'USER_NIGHT_BUDGET_USD',
  'MEMFADE_PROVIDER',
  'MEMFADE_PRICES',
  'MEMFADE_MODEL',
];

export const crossSettingsParsed = ({ issues }: { issues: { path?: PropertyKey[] }[] }) =>
  !issues.some((issue) => CROSS_CHECKED.includes(String(issue.path?.[0])));

interface CrossChecked {
  VECTOR_STORE: string;
  PGVECTOR_URL?: string;
  NIGHT_BUDGET_USD: number;
  USER_NIGHT_BUDGET_USD: number;
  MEMFADE_PROVIDER: string;
  MEMFADE_PRICES: PriceTable;
  MEMFADE_MODEL?: string;
}

export function crossSettingProblems(env: CrossChecked, ctx: z.RefinementCtx): void {
  if (env.VECTOR_STORE === 'pgvector' && !env.PGVECTOR_URL)
    ctx.addIssue({
      code: 'custom',
      path: ['PGVECTOR_URL'],
      message: 'PGVECTOR_URL is required with VECTOR_STORE=pgvector',
    });
  // A dollar budget needs the model's price: without it every call would look free.
  const unpriced = env.MEMFADE_PROVIDER !== 'offline' && !env.MEMFADE_PRICES[env.MEMFADE_MODEL ?? ''];
  for (const setting of ['NIGHT_BUDGET_USD', 'USER_NIGHT_BUDGET_USD'] as const)
    if (env[setting] > 0 && unpriced)
      ctx.addIssue({
        code: 'custom',
        path: [setting],
        message: `no price for MEMFADE_MODEL '${env.MEMFADE_MODEL}' in MEMFADE_PRICES, so its cost cannot be counted against the budget`,
      });
}
