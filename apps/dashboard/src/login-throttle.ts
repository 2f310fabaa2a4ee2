import type { Logger } from '@memfade/runtime';

/**
 * How fast one client may guess the dashboard's password (or the metrics token). Production uses
 * the defaults; tests pass a clock so a lockout ends without sleeping.
 */
export interface ThrottleSettings {
  /** Failed logins a client may make before it has to wait. */
  freeFailures: number;
  /** The first wait; every further failure doubles it... */
  firstLockMs: number;
  /** ...up to this. */
  maxLockMs: number;
  /** A client's failures are forgotten this long after its last failure or lockout, whichever ends later. */
  forgetAfterMs: number;
  /** Clients tracked at most: beyond it the one quiet longest is forgotten first, so memory stays bounded. */
  maxClients: number;
  now: () => number;
}

export const DEFAULT_THROTTLE: ThrottleSettings = {
  freeFailures: 5,
  firstLockMs: 1_000,
  maxLockMs: 15 * 60_000,
  forgetAfterMs: 60 * 60_000,
  maxClients: 10_000,
  now: Date.now,
};

interface Entry {
  failures: number;
  lockedUntil: number;
  forgetAt: number;
}

/**
 * Failed logins per client, with a lockout that doubles after each failure past the free ones.
 * During a lockout every attempt is refused unchecked, the right password too, so a guesser learns
 * nothing from it; a success resets the client.
 */
export class LoginThrottle {
  readonly settings: ThrottleSettings;
  // A Map keeps insertion order: re-inserting on each failure puts the client quiet longest first.
  private readonly clients = new Map<string, Entry>();

  constructor(
    private readonly logger: Logger,
    settings: Partial<ThrottleSettings> = {},
  ) {
    this.settings = { ...DEFAULT_THROTTLE, ...settings };
  }

  /** Milliseconds the client must still wait, 0 when it may try. */
  waitMs(client: string): number {
    const entry = this.current(client);
    return entry ? Math.max(0, entry.lockedUntil - this.settings.now()) : 0;
  }

  succeeded(client: string): void {
    this.clients.delete(client);
  }

  /** Counts a failure; returns the wait it starts (0 while the client still has free failures). */
  failed(client: string): number {
    const { freeFailures, firstLockMs, maxLockMs, forgetAfterMs } = this.settings;
    const now = this.settings.now();
    const entry = this.current(client) ?? { failures: 0, lockedUntil: 0, forgetAt: 0 };
    entry.failures += 1;
    const past = entry.failures - freeFailures;
    const lockMs = past > 0 ? Math.min(firstLockMs * 2 ** (past - 1), maxLockMs) : 0;
    entry.lockedUntil = now + lockMs;
    entry.forgetAt = entry.lockedUntil + forgetAfterMs;
    this.clients.delete(client);
    this.makeRoom(now);
    this.clients.set(client, entry);
    if (lockMs > 0)
      // One line per lockout, not per refused attempt: the log stays small under a flood.
      // The client's address only: never what it sent (it may be a real password mistyped).
      this.logger.warn(
        { client, failures: entry.failures, retryAfterSeconds: Math.ceil(lockMs / 1000) },
        'dashboard login throttled',
      );
    return lockMs;
  }

  /** Clients tracked now (for tests of the bound). */
  get size(): number {
    return this.clients.size;
  }

  private current(client: string): Entry | undefined {
    const entry = this.clients.get(client);
    if (entry && entry.forgetAt <= this.settings.now()) {
      this.clients.delete(client);
      return undefined;
    }
    return entry;
  }

  private makeRoom(now: number): void {
    if (this.clients.size < this.settings.maxClients) return;
    for (const [client, entry] of this.clients) if (entry.forgetAt <= now) this.clients.delete(client);
    // Still full: forget the clients quiet longest (the Map's first keys).
    for (const client of this.clients.keys()) {
      if (this.clients.size < this.settings.maxClients) break;
      this.clients.delete(client);
    }
  }
}

/**
 * The client a failure is counted against: the TCP peer's address, never X-Forwarded-For (anyone
 * can write that header; the dashboard has no trusted-proxy setting). An IPv6 host usually holds a
 * whole /64, so IPv6 addresses count per /64, or one host could guess from 2^64 addresses.
 */
export function clientKey(address: string | undefined): string {
  if (!address) return 'unknown';
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return mapped[1]!;
  if (!address.includes(':')) return address;
  const [head = '', tail] = address.split('%')[0]!.split('::');
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  const zeros = tail === undefined ? [] : Array(Math.max(0, 8 - left.length - right.length)).fill('0');
  const groups = [...left, ...zeros, ...right].slice(0, 4);
  return `${groups.map((group) => Number.parseInt(group, 16).toString(16)).join(':')}::/64`;
}
