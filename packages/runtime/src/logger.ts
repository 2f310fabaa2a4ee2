import { redactSecrets } from '@memfade/core';
import { type DestinationStream, type Logger, pino, stdSerializers } from 'pino';

export type { Logger } from 'pino';

/** Keys whose values are secrets or memory text: never written to logs. */
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

export interface LoggerOptions {
  level?: string;
  name?: string;
  destination?: DestinationStream;
}

export function createLogger(options: LoggerOptions = {}): Logger {
  return pino(
    {
      name: options.name ?? 'memfade',
      level: options.level ?? 'info',
      redact: { paths: REDACT_PATHS, censor: '***' },
      formatters: {
        log(object) {
          // Error messages may quote a connection string; strip its password before it is written.
          if (typeof object.err === 'object' && object.err && 'message' in object.err) {
            const err = object.err as { message: string; stack?: string };
            return {
              ...object,
              err: {
                ...err,
                message: redactSecrets(err.message),
                stack: err.stack && redactSecrets(err.stack),
              },
            };
          }
          return object;
        },
      },
      serializers: { err: stdSerializers.err },
    },
    options.destination,
  );
}
