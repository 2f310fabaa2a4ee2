import { createHash } from 'node:crypto';
import type { ServerResponse } from 'node:http';

/**
 * How result lines go on the wire: in a shuffled order, and as long as a test wants them.
 *
 * Padding: result lines as long as a test wants them, so a results file can be far bigger than the memory of
 * the process reading it. The filler is an extra property of the line object, after the provider's
 * own, which neither SDK nor memfade reads (a real provider may add fields at any time). It is
 * written from one shared piece, a piece at a time with backpressure: the emulator never holds a
 * padded line, so a single line can be larger than any heap.
 */

/** The property the filler goes in. */
export const PADDING_FIELD = 'emulator_padding';

const PIECE = Buffer.alloc(64 * 1024, 'x');

/** Resolves once `chunk` is handed to the socket (or the connection is gone: write then never flushes). */
function write(res: ServerResponse, chunk: string | Buffer): Promise<void> {
  return new Promise((resolve) => {
    if (res.destroyed) return resolve();
    res.write(chunk, () => resolve());
  });
}

/**
 * Writes one result line, `padding` bytes of filler in PADDING_FIELD when padding > 0, and its
 * newline. Returns the bytes written; a connection destroyed meanwhile stops the line short.
 */
export async function writeLine(
  res: ServerResponse,
  line: Record<string, unknown>,
  padding: number,
): Promise<number> {
  const json = JSON.stringify(line);
  if (padding <= 0) {
    await write(res, `${json}\n`);
    return Buffer.byteLength(json) + 1;
  }
  // `{...}` becomes `{...,"emulator_padding":"xxxx"}`: the line object always has properties.
  const head = `${json.slice(0, -1)},"${PADDING_FIELD}":"`;
  let sent = Buffer.byteLength(head);
  await write(res, head);
  for (let left = padding; left > 0 && !res.destroyed; left -= PIECE.length) {
    const piece = left >= PIECE.length ? PIECE : PIECE.subarray(0, left);
    await write(res, piece);
    sent += piece.length;
  }
  await write(res, '"}\n');
  return sent + 3;
}

/** A deterministic shuffle (seeded by the batch id), so a failing test fails the same way again. */
export function shuffled<T>(items: T[], seed: string): T[] {
  const out = [...items];
  let state = createHash('sha256').update(seed).digest().readUInt32LE(0) || 1;
  for (let i = out.length - 1; i > 0; i--) {
    state = (state * 1_103_515_245 + 12_345) >>> 0;
    const j = state % (i + 1);
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}
