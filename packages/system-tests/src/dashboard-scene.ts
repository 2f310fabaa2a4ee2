import { enqueueRun, startWorkerRole, waitForRun } from '@memfade/app';
import { insertMemories, memoryDocument } from '@memfade/db';
import { overrideNodeEnv } from '@memfade/testing';
import { expect } from 'vitest';
import { type Harness, startHarness } from './harness.js';

/**
 * The scene of the dashboard's security tests (apps/dashboard/src/dashboard-*.test.ts): a queue
 * that holds a completed and a failed compress job of memories with private text, the credentials
 * the dashboard is given, and what no refusal or error page may show.
 */

export const CREDENTIALS = { user: 'ops', password: 'Tr0ub4dor-and-3-horses' };
export const basicAuth = (value: string) => `Basic ${Buffer.from(value).toString('base64')}`;
/** The right credentials, as a header. */
export const OK = { authorization: basicAuth(`${CREDENTIALS.user}:${CREDENTIALS.password}`) };
/** Text only the scene's memories hold. */
export const MARKER = 'DASHBOARD-PRIVATE-MARKER-5521';
const NOW = new Date('2026-11-22T03:00:00Z');

export interface DashboardScene {
  harness: Harness;
  memoryIds: string[];
  /** The compress job that failed (its memory has no role card): the queue holds its reason. */
  failedJobId: string;
  close(): Promise<void>;
}

export async function dashboardScene(): Promise<DashboardScene> {
  // The worst case for error pages: Bull Board and Express show stack traces in development.
  const restoreNodeEnv = overrideNodeEnv('development');
  const harness = await startHarness({ now: NOW });
  harness.services.config.dashboard = { host: '127.0.0.1', port: 0, ...CREDENTIALS, readOnly: false };
  const created = new Date(NOW.getTime() - 4 * 86_400_000);
  const text = `We talked about the garden and the code word ${MARKER}; she planted tomatoes and basil and felt proud of it.`;
  const docs = ['with-card', 'without-card'].map((user, i) =>
    memoryDocument({
      memoryId: `dash-${i}`,
      userId: user,
      partnerId: 'companion',
      turns: [
        { role: 'user', text },
        { role: 'assistant', text: 'That sounds lovely. What will you plant next spring in the garden?' },
      ],
      createdAt: created,
    }),
  );
  // The second memory has no role card: its job fails, so the queue holds a failed reason too.
  await insertMemories(harness.services.models, docs, [{ userId: 'with-card', name: 'Sam', language: 'en' }]);
  const workers = startWorkerRole(harness.services);
  await waitForRun(harness.services, await enqueueRun(harness.services, { trigger: 'manual', asOf: NOW }), {
    timeoutMs: 30_000,
  });
  await workers.close();
  const [failed] = await harness.services.queues.compress.getJobs(['failed']);
  return {
    harness,
    memoryIds: docs.map((d) => String(d.memoryId)),
    failedJobId: failed!.id!,
    close: async () => {
      restoreNodeEnv();
      await harness.close();
    },
  };
}

/** What must never be in a refusal or an error page: queue names, job ids, memory text, stack frames. */
export function expectNothingLeaked(body: string, memoryIds: string[]): void {
  expect(body).not.toContain('memfade-compress');
  expect(body).not.toContain('memfade-nightly');
  expect(body).not.toContain(MARKER);
  for (const id of memoryIds) expect(body).not.toContain(id);
  expect(body).not.toMatch(/\bat .*\.(js|ts|mjs|cjs):\d+/);
  expect(body).not.toContain(CREDENTIALS.password);
}
