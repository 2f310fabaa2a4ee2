import { describe, expect, it } from 'vitest';
import { canonicalRoleCard } from './canonical.js';
import { parseMapping } from './mapping.js';

/**
 * The role card's names (docs/design.md §6): the persona's name and, where the product keeps it,
 * what the persona calls its user (roleCard.userName) reach core's card, so the prompt binds them
 * to the assistant and user turns. Pure: no server.
 */
describe('role card names', () => {
  const doc = { 用户: 'u1', 名字: '小雅', 称呼: '阿明', userName: 'not read without a path' };

  it('reads the user name at the mapped roleCard.userName path', () => {
    const mapping = parseMapping({ roleCard: { key: '用户', name: '名字', userName: '称呼' } });
    expect(canonicalRoleCard(doc, 'u1', mapping)).toMatchObject({ name: '小雅', userName: '阿明' });
  });

  it('reads no user name without the path: the product has none, and the prompt says 你 / you', () => {
    const mapping = parseMapping({ roleCard: { key: '用户', name: '名字' } });
    expect(canonicalRoleCard(doc, 'u1', mapping)).not.toHaveProperty('userName');
  });

  it('refuses a user name path MongoDB would misread, naming the key', () => {
    expect(() => parseMapping({ roleCard: { userName: '$nick' } })).toThrow(/mapping\.roleCard\.userName/);
  });
});
