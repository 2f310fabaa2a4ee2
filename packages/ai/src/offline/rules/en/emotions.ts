import type { Emotion, PatternRule } from '../types.js';

// The English pack's emotion words (lexicon.ts emotionsIn): one rule per emotion.

/**
 * Emotion words, matched as whole words with an ending of their own ("missed", "sadly", "stressful"): lexicon.ts
 * emotionsIn. Not a stem inside another word: "Mississippi" was sadness, "crystal" crying, a "fundraiser" fun.
 */
const emotion = (list: string, matches: string[], rejects: string[]): PatternRule => ({
  why: 'how the user felt, as a residue and a highlight (a death is grief, not an empty residue)',
  pattern: new RegExp(`\\b(?:${list})(?:s|es|d|ed|ing|ly|ily|ness|ful|er|est|ter|able)?\\b`, 'i'),
  matches,
  rejects,
});

export const emotions: Record<Emotion, PatternRule> = {
  grief: emotion(
    // A stage's prose writes the user's "my" as their name: "Jon lost Jon's job" is the loss "I lost my job" was.
    "died|dies|passed away|passed on|death|funeral|grief|grieving|mourning|put (?:her|him|them|it) down|lost (?:my|our|her|his|your|\\w+['’]s|a (?:close )?(?:friend|loved one|family member|relative|parent|pet))\\b",
    [
      'Your cat Miso died this morning.',
      'Deborah lost a friend last week.',
      'We had to put her down.',
      "It's been tough since Jon lost Jon's job.",
    ],
    ['We lost the game.', 'She passed the exam.'],
  ),
  fear: emotion(
    'afraid|scared|scares|scary|terrified|frightened|fear',
    ["You're scared he'll say you're being needy."],
    ['I went to the museum.'],
  ),
  anxiety: emotion(
    'nervous|anxious|worried|worry|worrying|stress|overwhelmed|panic|(?:feel|feels|felt|so|really) confused|(?:is|are|was|were|been|feel|feels|felt|so|really|get|gets|getting) overwhelming',
    [
      'She will panic.',
      "I'm worried about the exam.",
      'Assignments and exams are overwhelming.',
      'It can get overwhelming with so many demands.',
      'Sometimes I still feel confused and helpless.',
    ],
    ['I went to the museum.'],
  ),
  sadness: emotion(
    'sad|upset|disappointed|cried|cry|crying|heartbroken|depressed|unhappy|miss|' +
      // Said so by products' users and no feeling before (a probe written by hand, twenty-fourth round).
      'hopeless|helpless|devastated|worthless|homesick|empty inside|feel(?:s|ing)? empty|a failure|ashamed|guilty|betrayed|' +
      // _check_: "I feel very discouraged and unmotivated to work" was no pain, and V1 kept "Today is Tuesday" over it.
      'discouraged|unmotivated|demotivated',
    [
      'Lily cried.',
      'proud but sad today',
      'I feel hopeless.',
      'I feel like a failure.',
      'I feel discouraged.',
      'I missed her so much.',
    ],
    ['Mel paints every weekend.', 'I visited Mississippi last summer.', 'a crystal vase', 'the mission trip'],
  ),
  loneliness: emotion(
    'lonely|isolated|no one to talk|left out|invisible|(?:nobody|no one) cares|(?:feel(?:s|ing)?|so|very|really|completely|totally|all) alone\\b',
    // "I feel so alone with this." was no feeling, and the user's loneliness was dropped from V1.
    ['I feel lonely.', 'I feel so alone with this.', 'She was all alone.'],
    ['I met friends.', 'I live alone.', 'Leave me alone.'],
  ),
  anger: emotion('angry|annoyed|frustrated|hate|furious|jealous', ['I hate waiting.'], ['I wait.']),
  pride: emotion('proud|pride', ['You said proud but sad today.'], ['I went home.']),
  joy: emotion(
    'happy|glad|excited|love|loving|enjoy|fun|funny|amazing|wonderful|great|lovely|romantic|delighted|thrilled|laugh',
    ['I love the pottery class.', 'not happy', 'a funny movie', 'so much laughter'],
    ['I went to the museum.', 'the fundraiser for the shelter', 'the funeral was on Monday'],
  ),
  // Thanks are courtesy; gratitude is what is felt (感激, grateful).
  gratitude: emotion('grateful|appreciate|thankful', ['You are so grateful for her help.'], ['Thanks!']),
};

/** Each emotion's name, as a memory's residue says it (residue.ts). */
export const EMOTION_NAMES: Record<Emotion, string> = {
  grief: 'grief',
  fear: 'fear',
  anxiety: 'anxiety',
  sadness: 'sadness',
  loneliness: 'loneliness',
  anger: 'anger',
  pride: 'pride',
  joy: 'joy',
  gratitude: 'gratitude',
};

/**
 * The words around a feeling's: a negation before it (lexicon.ts emotionsIn), and a story's plot, whose
 * feelings are its characters' (lexicon.ts emotionsIn reads none in it).
 */
export const feelings = {
  emotions,
  negation: {
    why: 'a feeling negated just before it ("not happy") is not felt (a negated joy is sadness)',
    pattern: /(?:\b(?:not|never|no|hardly)|n't)\s+(?:\w+\s+)?$/i,
    matches: ["I'm not ", "I don't really "],
    rejects: ['I am '],
  } satisfies PatternRule,
  plot: {
    why: 'what a story is about ("It\'s about a woman who… after her mom dies") tells a plot: no feeling of the speaker\'s',
    pattern:
      /\b(?:it(?:'s|’s| is| was)|(?:the|this|that|my) (?:book|movie|film|story|show|novel|screenplay|play|series|song)(?:'s|’s| is| was)?) (?:all |mostly |kind of )?about (?:a|an|the|two|this|how|his|her|their)\b|\btells the story of\b/i,
    matches: [
      "It's about a woman who goes back to her hometown after her mom dies",
      'The movie is about two brothers',
    ],
    rejects: ["I'm so sad about my mom.", "It's about time I called her.", 'I care about the movie'],
  } satisfies PatternRule,
};
