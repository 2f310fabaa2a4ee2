import type { PatternRule } from '../types.js';

// The English pack's topics: what an opening asks about (the conversation's topic, offline topic.ts),
// and what a topic name is not.

export const topics = {
  opening: [
    {
      why: 'an opening question about a thing names the topic ("Have you seen Inception?")',
      pattern:
        /\b(?:do you know|have you (?:ever )?(?:heard of|seen|read|been to|watched|tried|played|listened to)|what do you think (?:of|about)|tell me about|let's talk about|(?:want|like|wanna) to talk about)\s+([^?.!,;]{2,40})(?=[?.!,;]|$)/i,
      matches: ['Have you seen Inception?', 'Tell me about your garden'],
      // Longer than a name, it is no topic: cut at 40 characters it ended inside a word ("photogra").
      rejects: [
        'I saw Inception.',
        'Do you want tea?',
        'Do you know that I like taking pictures and photography?',
      ],
    },
  ] satisfies PatternRule[],
  notATopic: {
    why: 'a "topic" that is a pronoun or holds one ("it out", "my fave books", "what your friend likes"), a question or a time names no thing: whose "my" a topic line would not say',
    pattern:
      /\b(?:it|its|that|this|these|those|my|your|our|their|his|her|me|you|we|they|us|them|i|how|what|why|when|where|who|which|any)\b|^(?:recently|lately|today|tonight|yesterday|now|again)$/iu,
    matches: ['it out', 'my fave books', 'what your friend likes', 'That', 'recently', 'how to make noodles'],
    rejects: ['Inception', 'the Louvre', 'photography', 'Italy'],
  } satisfies PatternRule,
  topicLead: {
    why: 'an article opening a topic name is a word of its own ("the Louvre": Louvre)',
    pattern: /(?:the|a|an)\s+/,
    piece: true,
    matches: ['the ', 'an '],
    rejects: ['the', 'any '],
  } satisfies PatternRule,
};
