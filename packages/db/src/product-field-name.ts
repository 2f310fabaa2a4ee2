import type { Mapping } from './mapping.js';

/**
 * The product's own name of a field core names in its canonical shape (a BadInputError's field,
 * docs/design.md §3), so that an error sends the operator to the field in their documents: under a
 * mapping of `messages` whose turns keep their text at `content`, `content.raw.3.text` is
 * `messages.3.content`; with turns in a collection of their own, `chat_turns[3].content`. A field
 * the mapping does not move keeps its name.
 */
export function productFieldName(mapping: Mapping, field: string): string {
  const f = mapping.fields;
  const [head, ...rest] = field.split('.');
  const under = (path: string, parts: string[]) => [path, ...parts].join('.');
  switch (head) {
    case 'memoryId':
    case 'userId':
    case 'partnerId':
    case 'rev':
    case 'compression':
    case 'pendingTopics':
      return under(f[head], rest);
    case 'meta': {
      const [name, ...more] = rest;
      const meta: Record<string, string> = {
        createdAt: f.createdAt,
        language: f.language,
        compressionStage: f.stage,
        compressedAt: f.compressedAt,
      };
      return name && meta[name] ? under(meta[name], more) : field;
    }
    case 'roleCard': {
      // A card field at the path the mapping reads it from (a card of the product's collection).
      const paths =
        'paths' in mapping.roleCard ? (mapping.roleCard.paths as Record<string, string | undefined>) : {};
      const [name, ...more] = rest;
      return name && paths[name] ? under(`roleCard.${paths[name]}`, more) : field;
    }
    case 'content':
      if (rest[0] === 'processed') return under(f.processed, rest.slice(1));
      if (rest[0] === 'raw') return conversationField(mapping, rest.slice(1));
      return field;
    default:
      return field;
  }
}

/** `content.raw` and below: the conversation's path, a turn's index, the turn's key for role, text or time. */
function conversationField(mapping: Mapping, [index, key, ...more]: string[]): string {
  const turns = mapping.config.memory.conversation.turns;
  const turnKey = key && turns ? ((turns as Record<string, unknown>)[key] as string | undefined) : key;
  const inTurn = [turnKey ?? key, ...more].filter((part) => part !== undefined);
  if (mapping.joined) {
    const turn = index === undefined ? '' : `[${index}]`;
    return [`${mapping.joined.collection}${turn}`, ...inTurn].join('.');
  }
  return [mapping.fields.conversation, index, ...inTurn].filter((part) => part !== undefined).join('.');
}
