import { hostname } from 'node:os';
import { type DestinationStream, type Logger, pino } from 'pino';
import { redactSecrets } from './redaction.js';
import { MEMFADE_VERSION } from './version.js';

export type { Logger } from 'pino';

/** Keys whose values are secrets: never written to logs. */
const REDACT_PATHS = [
  '*.apiKey',
  '*.password',
  '*.authorization',
  '*.headers.authorization',
  '*.headers["x-api-key"]',
  'apiKey',
  'password',
  'authorization',
];

/** Error properties worth logging; anything else an error carries may quote credentials or data. */
interface LoggedError {
  type: string;
  message: string;
  stack?: string;
  code?: string | number;
  status?: number;
  cause?: LoggedError;
}

/**
 * Errors are logged by name, message, stack, code and status only (and their cause, the same
 * way). Libraries hang more on them: ioredis puts the AUTH command with its password argument on
 * a WRONGPASS error, the SDKs the provider's error body, fetch the request. pino's standard
 * serializer would copy all of it into the log.
 */
function serializeError(value: unknown, depth = 0): unknown {
  if (!(value instanceof Error)) return value;
  const error = value as Error & { code?: unknown; status?: unknown };
  const out: LoggedError = { type: error.name || error.constructor?.name || 'Error', message: error.message };
  if (error.stack) out.stack = error.stack;
  if (typeof error.code === 'string' || typeof error.code === 'number') out.code = error.code;
  if (typeof error.status === 'number') out.status = error.status;
  if (error.cause instanceof Error && depth < 3)
    out.cause = serializeError(error.cause, depth + 1) as LoggedError;
  return out;
}

export interface LoggerOptions {
  level?: string;
  /** The `service` field of every line: which process wrote it (memfade-worker, memfade-dashboard). */
  service?: string;
  destination?: DestinationStream;
}

/**
 * JSON lines that say on each one which process and version wrote them, on which host, and when
 * (ISO 8601 `time`, readable without converting epoch milliseconds), so lines collected from a
 * fleet can be told apart and matched with a deploy.
 */
export function createLogger(options: LoggerOptions = {}): Logger {
  return pino(
    {
      base: {
        service: options.service ?? 'memfade',
        version: MEMFADE_VERSION,
        pid: process.pid,
        hostname: hostname(),
      },
      timestamp: pino.stdTimeFunctions.isoTime,
      level: options.level ?? 'info',
      redact: { paths: REDACT_PATHS, censor: '***' },
      serializers: { err: serializeError, error: serializeError },
      hooks: {
        // The last pass over every line, whatever field or message a secret hides in: registered
        // secret values (registerSecrets), connection-string passwords, authorization values.
        streamWrite: redactSecrets,
      },
    },
    options.destination,
  );
}
