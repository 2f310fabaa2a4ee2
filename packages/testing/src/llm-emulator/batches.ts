import type { IncomingMessage, ServerResponse } from 'node:http';
import { anthropicBatches, messageLines } from './anthropic-batches.js';
import { type BatchContext, createBatchStore } from './batch-store.js';
import { chatLines, openaiBatches, openaiFiles } from './openai-batches.js';

export type { BatchControls, EmulatedBatchInfo } from './batch-controls.js';
export type { BatchContext } from './batch-store.js';

/**
 * Both providers' batch APIs on one store of batches: Anthropic Message Batches
 * (anthropic-batches.ts), the OpenAI Batch API and Files (openai-batches.ts).
 */
export function createBatchEmulator(ctx: BatchContext) {
  const store = createBatchStore(ctx, { messages: messageLines, chat: chatLines });

  /** Serves the batch and file endpoints; false for any other path. */
  const handle = async (req: IncomingMessage, res: ServerResponse, raw: Buffer): Promise<boolean> => {
    const url = new URL(req.url ?? '/', 'http://emulator');
    const path = url.pathname;
    const under = (prefix: string) => path.slice(prefix.length).split('/').filter(Boolean);
    if (path.startsWith('/v1/messages/batches')) {
      await anthropicBatches(store, req, res, under('/v1/messages/batches'), raw, url.searchParams);
      return true;
    }
    if (path.startsWith('/v1/batches')) {
      await openaiBatches(store, req, res, under('/v1/batches'), raw, url.searchParams);
      return true;
    }
    if (path.startsWith('/v1/files')) {
      await openaiFiles(store, req, res, under('/v1/files'), raw);
      return true;
    }
    return false;
  };

  /**
   * Brings every batch up to date, as a real provider's time passes whether or not anyone looks:
   * what ended by now has billed its lines (read before the books are compared).
   */
  const upToDate = () => {
    store.newestFirst('messages');
    store.newestFirst('chat');
  };

  return { handle, controls: store.controls, upToDate };
}
