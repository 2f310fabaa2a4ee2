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
