import { createLogger } from '@memfade/runtime';
import { describe, expect, it } from 'vitest';
import { clientKey, LoginThrottle } from './login-throttle.js';

const silent = createLogger({ level: 'silent' });

describe('LoginThrottle', () => {
  it('tracks at most maxClients clients, forgetting the one quiet longest', () => {
    let now = 0;
    const throttle = new LoginThrottle(silent, { maxClients: 3, now: () => now });
    for (let i = 0; i < 1_000; i++) {
      now += 1;
      throttle.failed(`10.0.${Math.floor(i / 250)}.${i % 250}`);
      expect(throttle.size).toBeLessThanOrEqual(3);
    }
    // A client that keeps failing is the most recent, so it stays tracked while others come and go.
    for (let i = 0; i < 10; i++) {
      throttle.failed('192.0.2.1');
      throttle.failed(`198.51.100.${i}`);
    }
    expect(throttle.waitMs('192.0.2.1')).toBeGreaterThan(0);
    expect(throttle.size).toBe(3);
  });

  it('forgets a client forgetAfterMs after its lockout ends, and caps the lockout at maxLockMs', () => {
    let now = 0;
    const throttle = new LoginThrottle(silent, {
      freeFailures: 2,
      firstLockMs: 1_000,
      maxLockMs: 5_000,
      forgetAfterMs: 60_000,
      now: () => now,
    });
    const locks = Array.from({ length: 6 }, () => {
      const lock = throttle.failed('192.0.2.1');
      now += lock;
      return lock;
    });
    expect(locks).toEqual([0, 0, 1_000, 2_000, 4_000, 5_000]);
    now += 59_999;
    expect(throttle.failed('192.0.2.1')).toBe(5_000);
    now += 5_000 + 60_000;
    // Forgotten: its free failures are back, and it no longer takes memory.
    expect(throttle.waitMs('192.0.2.1')).toBe(0);
    expect(throttle.size).toBe(0);
    expect(throttle.failed('192.0.2.1')).toBe(0);
  });
});

describe('clientKey', () => {
  it('is the peer address, an IPv4-mapped address as IPv4, and an IPv6 address by its /64', () => {
    expect(clientKey('203.0.113.7')).toBe('203.0.113.7');
    expect(clientKey('::ffff:203.0.113.7')).toBe('203.0.113.7');
    expect(clientKey('2001:db8:1:2:aaaa::1')).toBe('2001:db8:1:2::/64');
    expect(clientKey('2001:db8:1:2:bbbb:cccc:dddd:eeee')).toBe('2001:db8:1:2::/64');
    expect(clientKey('2001:db8::5')).toBe('2001:db8:0:0::/64');
    expect(clientKey('::1')).toBe('0:0:0:0::/64');
    expect(clientKey('fe80::1%eth0')).toBe('fe80:0:0:0::/64');
    expect(clientKey(undefined)).toBe('unknown');
  });
});
