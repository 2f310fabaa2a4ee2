import type { PatternRule } from '../types.js';

// The English pack's questions: what ends one, what makes one a worry, how one is reported.

/** English auxiliaries: what a question opens with, inverted ("Why isn't Jimmy…?"). */
const AUX =
  "am|is|are|was|were|do|does|did|have|has|had|can|could|will|would|should|shall|may|might|must|isn't|aren't|wasn't|weren't|don't|doesn't|didn't|haven't|hasn't|can't|couldn't|won't|wouldn't|shouldn't";

/** How an English question is reported as indirect speech (questions.ts). */
export const questions = {
  toldQuestion: {
    why: "a question someone asked, quoted after the speaker's own words ('My mom asked me, \"When are you…?\"'): told, not asked",
    // A Chinese user's words in an English memory too ("妈妈又问我：“你什么时候结婚？").
    pattern: /\S\s*[“"「][^“”"「」]+[?？][”"」]?$/u,
    matches: ['But my mom asked me again, "When are you getting married?"', '妈妈又问我：“你什么时候结婚？'],
    rejects: ['"When are you getting married?"', 'Did you see "Up"?'],
  } satisfies PatternRule,
  concern: [
    {
      why: 'a feared outcome ("what if"), a doubt about oneself ("should I"), a why-not about one\'s life is a worry',
      pattern:
        /\b(?:what if|should i|am i|is it normal|why (?:isn't|doesn't|don't|won't|can't|didn't|wasn't|aren't)|if i (?:fail|lose|don't|can't|mess))\b/i,
      matches: ['What if they ask why I want to leave?', 'Should I tell my mom?'],
      rejects: ['Is it open on Sunday?'],
    },
  ] satisfies PatternRule[],
  whQuestion: {
    why: 'a wh-question with its auxiliary: "Why isn\'t Jimmy…?" is reported "why Jimmy isn\'t…"',
    pattern: new RegExp(
      `^(what|why|how(?: \\w+)?|when|where|who|which(?: \\w+)?|whose)\\s+(${AUX})\\s+(\\S+)\\s*(.*)$`,
      'i',
    ),
    matches: ["Why isn't Jimmy paying attention to me anymore", 'How long did you stay'],
    rejects: ['Is it open on Sunday', 'Why not'],
  } satisfies PatternRule,
  whBe: {
    why: '"What is your name?" is reported "what your name is"',
    pattern: /^(what|who|where|which(?: \w+)?|how(?: \w+)?)\s+(is|are|was|were)\s+(.+)$/i,
    matches: ['What is your name', 'Where was the party'],
    rejects: ['Why is it closed', 'What happened'],
  } satisfies PatternRule,
  yesNo: {
    why: 'a yes-no question: "Should I tell my mom?" is reported "whether you should tell your mom"',
    pattern: new RegExp(`^(${AUX})\\s+(\\S+)\\s*(.*)$`, 'i'),
    matches: ['Should I tell my mom', 'Is it open on Sunday'],
    rejects: ['Why is it closed', 'Tell me more'],
  } satisfies PatternRule,
  questionSubject: {
    why: 'a question\'s subject pronoun (a name is one too): never another word ("What has changed…")',
    pattern: /^(?:i|you|he|she|it|we|they)$/i,
    matches: ['I', 'they'],
    rejects: ['changed', 'Jimmy'],
  } satisfies PatternRule,
  doSupport: {
    why: '"do" only made the question: indirect speech drops it ("what you think"); "does" and "did" carry the person or tense the verb after them lacks, and stay ("how it does look", never "how it look")',
    pattern: /^do$/i,
    matches: ['do', 'Do'],
    rejects: ['did', 'done', 'does'],
  } satisfies PatternRule,
  questionLead: {
    why: 'a phrase leading a question after its comma ("Besides painting and going on a trip, do you…?"): one clause, never told alone',
    pattern: /^(?:besides|apart from|aside from|other than|except for|in addition to)\b(?!,)/i,
    matches: ['Besides painting and going on a trip,', 'Apart from work,'],
    rejects: ['Besides, I went home.', 'I went home besides.'],
  } satisfies PatternRule,
  turnsToAsk: {
    why: 'a clause asking the other after a statement in its sentence ("I\'ve been studying English, do you have any tips?"): the statement is told, the question asked',
    pattern: new RegExp(
      `^(?:(?:so|and|but|btw|also)[,\\s]+)?(?:(?:${AUX}) (?:you|I)\\b|(?:what|how|which|where|why)\\b.*\\byou\\b)`,
      'i',
    ),
    matches: [
      'do you have any tips?',
      'can you think of any ways to improve my Chinese?',
      'what do you think?',
    ],
    rejects: ['and I love it', 'which I like', 'do it now'],
  } satisfies PatternRule,
  questionOpener: {
    why: 'a word opening a question ("So, …", "Hey…") is not what was asked',
    pattern: /^(?:so|well|oh|hey|and|but|um|hmm|also|btw|anyway)[,\s]+/i,
    matches: ['So, what did you do', 'hey how are you'],
    rejects: ['Someone asked', 'Sorry'],
  } satisfies PatternRule,
  whatIf: {
    why: '"What if I fail?" is a worry: "worried that I fail"',
    pattern: /^what if\s+(.+)$/i,
    matches: ['What if they ask why I want to leave'],
    rejects: ['What is it', 'So what if'],
  } satisfies PatternRule,
  answeredInSentence: {
    why: 'a question a stage reports, then its answer in the same sentence ("I asked whether…, and Sunny said when…"): two statements, the answer one of its own',
    pattern:
      /^(?:I|[A-Z][\w'’-]*(?: [A-Z][\w'’-]*)?) (?:asked|wondered)\b[^.!?]*,\s*and (?:I|[A-Z][\w'’-]*(?: [A-Z][\w'’-]*)?) said\b/u,
    matches: [
      // One statement, V2 dropped it as a question, the girl who shared her food with it.
      'I asked whether you can share any experiences you had during your trip,and Sunny said when Sunny was climbing,',
    ],
    rejects: ['I said it was fine, and Sunny said yes', 'Jon asked whether it opens on Sunday.'],
  } satisfies PatternRule,
  reportedQuestion: {
    why: 'a question a stage reports ("Jon asked whether…"), and who asked it; not a request ("asked you to")',
    pattern: /^([A-Z][\w'’-]*(?: [A-Z][\w'’-]*){0,2}) (?:asked|wondered)\b(?! (?:\w+ )?(?:to|for)\b)/u,
    matches: [
      'Jon asked whether the museum opens on Sunday.',
      'Mia wondered why Jimmy left.',
      'John Zhang asked whether',
    ],
    rejects: ['Mia asked you to call her.', 'Jon said he asked.'],
  } satisfies PatternRule,
  affirms: {
    why: 'a short yes to the other\'s question ("Were you scared?" "A little."): it says what the question asked, a feeling too',
    pattern:
      /^(?:(?:yes|yeah|yep|oh)[,!.]?\s*)?(?:yes|yeah|yep|a (?:little|bit)(?: bit)?|kind of|kinda|sort of|a lot|very|so much|totally|definitely|of course|really)[.!,]?$/i,
    matches: ['A little.', 'Yeah, kind of', 'Definitely!'],
    rejects: ['A little, but the guide said to hide under the table.', 'No.', 'Not really.'],
  } satisfies PatternRule,
};
