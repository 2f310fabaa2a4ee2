/**
 * The receipt of `memfade forget` (docs/design.md invariant 8): one entry per place memfade put a
 * memory's derived data. The one definition: forget, the batch side and the CLI's printout all use it.
 */

/**
 * One place `memfade forget` checked: what was removed there, or why it could not be. Statuses:
 * - clean: nothing of the target is left there that memfade can reach (looked at again after);
 * - pending: something will go later, and `detail` says when (a batch still canceling);
 * - not checked: the place is not in use in this configuration (`detail` says why: batch mode off);
 * - left: something of the target is still there; failed: it could not be removed or checked.
 */
export interface ReceiptEntry {
  place: string;
  status: 'clean' | 'pending' | 'not checked' | 'left' | 'failed';
  detail: string;
  /** What the place's own retention keeps beyond memfade's reach (a WAL, an oplog, backups). */
  kept?: string;
}

/** The receipt's places that the batch side of erasure (batch-erasure.ts) reports on. */
export const BATCH_PLACES = {
  requests: 'batch requests in flight',
  files: 'provider batch files',
} as const;

/** Statuses with nothing left undone that memfade could do: `memfade forget` exits 0 with only these. */
export const DONE: ReceiptEntry['status'][] = ['clean', 'pending', 'not checked'];
