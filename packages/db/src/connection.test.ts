import { describe, expect, it } from 'vitest';
import { isMongoUnreachable } from './connection.js';

const named = (name: string, message: string, cause?: Error) => {
  const error = new Error(message, cause ? { cause } : undefined);
  error.name = name;
  return error;
};

describe('isMongoUnreachable', () => {
  it('knows an outage by the driver error names, in the causes too, and by a bulk write cut off', () => {
    expect(isMongoUnreachable(named('MongoNetworkError', 'connection closed'))).toBe(true);
    expect(
      isMongoUnreachable(new Error('job failed', { cause: named('MongoServerSelectionError', 'x') })),
    ).toBe(true);
    // The fault suite's MongoDB cut off mid-run: the run's books written in bulk failed this way,
    // and each job logged it with its stack instead of the outage log taking it.
    expect(isMongoUnreachable(named('MongoBulkWriteError', 'read ECONNRESET'))).toBe(true);
  });

  it('is no outage for a fault of the data, or a socket error of another service', () => {
    expect(isMongoUnreachable(named('MongoBulkWriteError', 'E11000 duplicate key error'))).toBe(false);
    expect(isMongoUnreachable(named('MongoServerError', 'Document failed validation'))).toBe(false);
    expect(isMongoUnreachable(new Error('read ECONNRESET'))).toBe(false);
  });
});
