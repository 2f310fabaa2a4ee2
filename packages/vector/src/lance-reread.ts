import type * as lancedb from '@lancedb/lancedb';

/**
 * Reads that a purge elsewhere may cut short. Another process's purgeDeleted (under the fleet's
 * vector write lock, which readers do not take) removes every file of the versions before its own;
 * a handle still reading one of them, for up to the connection's read-consistency interval, gets
 * LanceDB's "Not found" for a data file. That is no fault of the data: the read runs again against
 * the version committed now. A few times, not forever: each purge is one commit, and a read that
 * keeps losing its files to new ones is a fault worth reporting.
 */
const READ_ATTEMPTS = 3;

const filesGone = (error: unknown) =>
  error instanceof Error && /lance error: Not found: /.test(error.message);

export async function readThroughPurge<T>(table: lancedb.Table, read: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await read();
    } catch (error) {
      if (attempt >= READ_ATTEMPTS || !filesGone(error)) throw error;
      await table.checkoutLatest();
    }
  }
}
