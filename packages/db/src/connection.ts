import mongoose, { type Connection } from 'mongoose';

/**
 * A connection of its own (not mongoose's global one), so an app or a test can hold several.
 * No automatic collection or index creation: ensureIndexes() does that explicitly, with
 * createIndexes, which both MongoDB and the in-memory test server accept.
 */
export async function connectMongo(
  uri: string,
  options: { dbName: string; timeoutMs?: number },
): Promise<Connection> {
  const timeoutMs = options.timeoutMs ?? 10_000;
  const connection = mongoose.createConnection(uri, {
    dbName: options.dbName,
    autoCreate: false,
    autoIndex: false,
    serverSelectionTimeoutMS: timeoutMs,
    connectTimeoutMS: timeoutMs,
  });
  // The driver tries again until the timeout whatever the error; a refused port or an unknown host
  // on every server fails at once instead (waiting will not cure it, and a cron job should not sit
  // out CONNECT_TIMEOUT_MS to learn it).
  const client = connection.getClient();
  let refuse: (error: unknown) => void = () => undefined;
  const refused = new Promise<never>((_, reject) => {
    refuse = reject;
  });
  const onChange = (event: { newDescription: { servers: Map<string, { error?: unknown }> } }) => {
    const errors = [...event.newDescription.servers.values()].map((server) => server.error);
    if (errors.length && errors.every((error) => REFUSALS.has(socketCode(error) ?? ''))) refuse(errors[0]);
  };
  client.on('topologyDescriptionChanged', onChange);
  try {
    await Promise.race([connection.asPromise(), refused]);
    return connection;
  } catch (error) {
    // The client first: mongoose's close() waits for the server selection to time out.
    await client.close().catch(() => undefined);
    await connection.close().catch(() => undefined);
    throw error;
  } finally {
    client.off('topologyDescriptionChanged', onChange);
  }
}

/** Nothing listens at that port, or no such host: at start-up, a mistake to report, not an outage to wait out. */
const REFUSALS = new Set(['ECONNREFUSED', 'ENOTFOUND']);

/** The socket error code (ECONNREFUSED...) of an error or of one of its causes. */
export function socketCode(error: unknown): string | undefined {
  for (let e = error, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && /^E[A-Z_]+$/.test(code)) return code;
  }
  return undefined;
}

export async function closeMongo(connection: Connection): Promise<void> {
  await connection.close();
}

/**
 * Whether an error says MongoDB could not be reached (refused, reset, timed out, no server to
 * select), here or in its causes: an outage the driver retries, not a fault of the data.
 */
export function isMongoUnreachable(error: unknown): boolean {
  for (let e = error, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) {
    if (/^Mongo(ose)?(Network|NetworkTimeout|ServerSelection|PoolCleared)Error$/.test(e.name)) return true;
    // The driver (7.8) lets a socket's write error through unwrapped (Connection.writeCommand): a
    // plain `write ECONNRESET`, told from another service's by where it was thrown.
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && SOCKET_ERRORS.has(code) && e.stack?.includes('/mongodb/lib/'))
      return true;
    // A bulk write cut off by the outage says so in its message only ("MongoBulkWriteError: read
    // ECONNRESET"): the run's books are written in bulk (runs/together.ts).
    if (/^Mongo/.test(e.name) && SOCKET_MESSAGE.test(e.message)) return true;
  }
  return false;
}

/** A socket's error as a message: "read ECONNRESET", "connect ECONNREFUSED 127.0.0.1:27017". */
const SOCKET_MESSAGE =
  /^(?:read|write|connect) (?:ECONNRESET|ECONNREFUSED|EPIPE|ETIMEDOUT|EHOSTUNREACH|ENETUNREACH)\b/;

const SOCKET_ERRORS = new Set([
  'ECONNRESET',
  'ECONNREFUSED',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
]);
