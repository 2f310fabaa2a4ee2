/**
 * How long a test waits on worker processes (or a command it runs) for a condition before it fails.
 * Generous on purpose: on a quiet machine these conditions hold within seconds, but on a shared one
 * at load 25-35 the same waits took minutes; the wait ends as soon as the condition holds, so a
 * passing test pays nothing for it. A test's own timeout must leave room for its waits.
 */
export const WORKER_WAIT_MS = 180_000;

/**
 * Polls check every pollMs until it holds; after timeoutMs throws with why() in the message (what
 * was awaited, or the output of the processes that should have made it true).
 */
export async function until(
  check: () => Promise<boolean>,
  timeoutMs = 30_000,
  why: () => string = () => 'condition not met',
  pollMs = 100,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`after ${timeoutMs} ms: ${why()}`);
    await new Promise((resolve) => setTimeout(resolve, pollMs));
  }
}
