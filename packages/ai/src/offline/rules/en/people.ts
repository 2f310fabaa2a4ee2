import { type PatternRule, type WordsRule, words } from '../types.js';

// The English pack's people: the labels of roles, the words and pronouns for a person, what is no name.

export const people = {
  speakerI: {
    why: 'a line opening with the speaker\'s own "I" or "my" already says who speaks as "I" (lines.ts opensWith)',
    words: words("i i'm i've i'll i'd my"),
    matches: ['i', "i'm", 'my'],
    rejects: ['you', 'me', 'mine'],
  } satisfies WordsRule,
  speakerYou: {
    why: 'a line opening with "you" or "your" already says who speaks as "you" (lines.ts opensWith)',
    words: words("you you're you've you'll you'd your"),
    matches: ['you', "you're", 'your'],
    rejects: ['i', 'yours'],
  } satisfies WordsRule,
  selfIntro: {
    why: 'a name the speaker introduces themself with ("My name is Emily") is theirs',
    pattern: /my name is|i'm|i am|call me/,
    piece: true,
    matches: ['my name is', 'call me'],
    rejects: ['my name', 'i was'],
  } satisfies PatternRule,
  personPronoun: {
    why: 'a he or she must name its person in a core memory ("they" also goes on about a named speaker; "it" is a thing)',
    pattern: /\b(?:he|him|his|she|her|hers)\b/i,
    matches: ['She will panic.', "You said he didn't even notice"],
    rejects: ['They loved it.', 'The theme park'],
  } satisfies PatternRule,
  person: {
    why: 'a word for a person a he or she can stand for ("my mom… She had a heart attack")',
    pattern:
      /\b(?:mom|mum|mother|dad|father|parents?|sister|brother|daughter|son|wife|husband|grandma|grandmother|grandpa|grandfather|aunt|uncle|cousin|niece|nephew|friend|boss|manager|teacher|coach|doctor|vet|nurse|therapist|landlord|roommate|neighbou?r|colleague|coworker|girlfriend|boyfriend|partner|baby|kid|child|boy|girl|man|woman|guy|lady|Dr|Mr|Mrs|Ms)\b/i,
    matches: ['Should I tell my mom?', 'My daughter Lily graduated'],
    rejects: ['I went to the museum.', 'Sonny was late'],
  } satisfies PatternRule,
  owner: {
    why: 'a word for a person after his / her is another person than the pronoun\'s ("her dad": she is not the dad)',
    pattern: /\b(?:his|her)\s+/i,
    piece: true,
    matches: ['her ', 'his '],
    rejects: ['hers ', 'the '],
  } satisfies PatternRule,
  placeWord: {
    why: 'a capitalised word before one of these names a place, not a person ("the clinic on Maple Street")',
    pattern:
      /^(?:Street|Avenue|Road|Lane|Drive|Boulevard|Square|Park|Lake|River|Mountains?|Beach|Bay|Island|Bridge|Hospital|Clinic|School|University|College|Museum|Church|Center|Centre|Shelter|Hotel)$/,
    matches: ['Street', 'Mountains'],
    rejects: ['Lily', 'street'],
  } satisfies PatternRule,
  womanWord: {
    why: 'a word for a woman: a "she" rather means her than a cousin or a friend ("…the way she taught me" after "my grandma")',
    pattern:
      /\b(?:mom|mum|mother|sister|daughter|wife|grandma|grandmother|granny|aunt|niece|girlfriend|girl|woman|lady|Mrs|Ms)\b/i,
    matches: ["my grandma's farm", 'My daughter Lily graduated'],
    rejects: ['My cousin sold it', 'my dad'],
  } satisfies PatternRule,
  manWord: {
    why: 'a word for a man: a "he" rather means him',
    pattern:
      /\b(?:dad|father|brother|son|husband|grandpa|grandfather|uncle|nephew|boyfriend|boy|man|guy|Mr)\b/i,
    matches: ['my dad', 'Her husband Tom'],
    rejects: ['My cousin sold it', 'my mom'],
  } satisfies PatternRule,
  feminine: {
    why: 'the pronouns of a woman',
    pattern: /\b(?:she|her|hers|herself)\b/i,
    matches: ['the way she taught me', 'her farm'],
    rejects: ['he left', 'there'],
  } satisfies PatternRule,
  placedName: {
    why: 'a capitalised word after a preposition of place ("moving to Denver", "in Portland") or a shop\'s name ("Paws & Claws") names no person a he or she can mean',
    pattern:
      /\b(?:to|in|at|on|from|near|into|across|around|through)\s+[A-Z][a-z]+|[A-Z][a-z]+ & [A-Z][a-z]+/g,
    matches: ['to Denver', 'in Portland', 'Paws & Claws'],
    rejects: ['Lily graduated', 'to see Lily', 'with Tom'],
  } satisfies PatternRule,
  notAName: {
    why: "capitalised words that name no person: pronouns, days, months, a sentence's usual openers",
    pattern:
      /^(?:I|I'm|I've|I'll|I'd|The|A|An|My|Me|Mine|Our|Your|It|This|That|He|She|Her|Him|They|We|You|And|But|So|Oh|Yes|No|Hi|Hey|Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday|January|February|March|April|May|June|July|August|September|October|November|December|Christmas|Easter)$/,
    // A title's "Me" ("the Remember Me song", kept as said) names nobody a "her" could mean.
    matches: ['Monday', 'The', 'Christmas', 'Me'],
    rejects: ['Jimmy', 'Lily', 'the'],
  } satisfies PatternRule,
};
