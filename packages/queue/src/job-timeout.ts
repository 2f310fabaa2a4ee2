import { JobTimeoutError, type MemoryStore } from '@memfade/core';

/** What the work of one job gets while it runs under a deadline. */
export interface Deadline {
  /** Aborted at the deadline, with the JobTimeoutError as its reason. */
  signal?: AbortSignal;
  /** The store to write through: it refuses to start a stage write once the deadline has passed. */
  store: MemoryStore;
}

/**
 * Runs one job's work with a wall-clock limit (JOB_TIMEOUT_MS; 0 = none). At the deadline the
 * signal aborts (model calls are cancelled, no new call or stage write starts) and the job fails
 * with a retryable JobTimeoutError, but only once any stage write already on its way has
 * settled: from the moment the error is thrown, this attempt will never write again, so its
 * retry (or another worker) is the only writer. JavaScript cannot stop a call that ignores the
 * signal; it can only be kept from writing when it returns, which is what the guarded store does.
 */
export async function withJobTimeout<T>(
  timeoutMs: number,
  message: string,
  store: MemoryStore,
  work: (deadline: Deadline) => Promise<T>,
): Promise<T> {
  if (timeoutMs <= 0) return work({ store });
  const controller = new AbortController();
  const writes = new Set<Promise<unknown>>();
  const guarded: MemoryStore = {
    loadMemory: (memoryId) => store.loadMemory(memoryId),
    loadRoleCard: (userId, partnerId) => store.loadRoleCard(userId, partnerId),
    recordError: (memoryId, error) => store.recordError(memoryId, error),
    fieldName: (field) => store.fieldName(field),
    applyTransition: (transition) => write(() => store.applyTransition(transition)),
    discardStaleStages: (discard) => write(() => store.discardStaleStages(discard)),
  };
  async function write<T>(start: () => Promise<T>): Promise<T> {
    // Checked and started in the same tick: the deadline cannot fire in between.
    controller.signal.throwIfAborted();
    const pending = start();
    writes.add(pending);
    try {
      return await pending;
    } finally {
      writes.delete(pending);
    }
  }
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      const error = new JobTimeoutError(`${message} timed out after ${timeoutMs} ms (JOB_TIMEOUT_MS)`);
      controller.abort(error);
      reject(error);
    }, timeoutMs);
  });
  try {
    return await Promise.race([work({ signal: controller.signal, store: guarded }), deadline]);
  } catch (error) {
    if (!controller.signal.aborted) throw error;
    // Timed out (whether the deadline or the work's own abort check came first): report it only
    // once a stage write already on its way has landed or failed.
    await Promise.allSettled([...writes]);
    throw controller.signal.reason;
  } finally {
    clearTimeout(timer);
  }
}
