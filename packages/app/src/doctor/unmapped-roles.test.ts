import type { CanonicalMemory } from '@memfade/db';
import { describe, expect, it } from 'vitest';
import { unmappedRoleEffect, unmappedRoles } from './checks.js';

const memory = (memoryId: string, userId: string, roles: string[]) =>
  ({
    memoryId,
    userId,
    partnerId: 'mia',
    content: { raw: roles.map((role) => ({ role, text: 'hi' })) },
  }) as unknown as CanonicalMemory;

describe('doctor: conversation roles the mapping leaves unmapped', () => {
  it("reports every user's own id as one role, $userId, and says to map it (docs/mapping.md roles)", () => {
    const sample = [
      memory('m1', 'u-1', ['u-1', 'mia', 'u-1']),
      memory('m2', 'u-2', ['u-2', 'mia', 'system']),
    ];
    expect(unmappedRoles(sample)).toEqual([
      { role: '$userId', turns: 3, memories: 2, example: 'm1' },
      { role: '$partnerId', turns: 2, memories: 2, example: 'm1' },
      { role: 'system', turns: 1, memories: 1, example: 'm2' },
    ]);
  });

  it('names the setting that maps a sender id', () => {
    const mapping = { config: { memory: { conversation: { turns: { roles: {} } } } } } as never;
    expect(unmappedRoleEffect('$userId', mapping)).toMatch(
      /map \$userId to user in mapping\.memory\.conversation\.turns\.roles$/,
    );
    expect(unmappedRoleEffect('$partnerId', mapping)).toMatch(/map \$partnerId to assistant/);
  });
});
