/**
 * A memory that cannot be processed as it stands (missing field, invalid date, huge or binary
 * content...). Retrying cannot help, so the queue treats it as unrecoverable.
 */
export class BadInputError extends Error {
  override readonly name = 'BadInputError';
  constructor(
    readonly memoryId: string,
    readonly field: string,
    readonly reason: string,
  ) {
    super(`memory ${memoryId}: ${field}: ${reason}`);
  }
}

/** A model reply that failed validation even after the repair call. Retrying would cost money for nothing. */
export class InvalidModelOutputError extends Error {
  override readonly name = 'InvalidModelOutputError';
}

/** Configuration that cannot work; raised at start-up. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
