import { type PatternRule, type WordsRule, words } from '../types.js';
import { clauses } from './clauses.js';
import { feelings } from './emotions.js';
import { people } from './people.js';
import { questions } from './questions.js';
import { smallTalk } from './small-talk.js';
import { topics } from './topics.js';

/**
 * The offline compressor's English: every pattern and word list its pipeline reads for an English
 * text (docs/eval/README.md, "Rules as data"). Each rule says why it is there and what it must and
 * must not match; rules.test.ts runs the examples. Its clauses (clauses.ts), emotion words
 * (emotions.ts), questions (questions.ts), topics (topics.ts), small talk (small-talk.ts), words for
 * people and roles (people.ts) and the grammar of the speaker's own "I" (grammar.ts) are files of their own.
 */

/** What an English core memory writes in its own words: why details went, what relates to the persona. */
export const CORE_MEMORY_TEXT = {
  forgotten: 'details the extractive compressor did not keep',
  interests: 'Relates to: ',
  listSep: ', ',
};
/** The days of the week, Monday first (dates.ts reads a weekday's index). */
export const WEEKDAYS = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'];
/** Days from the memory's date of each word for a day (dates.ts spanEn), as relativeDate finds them. */
export const DAYS_FROM_TODAY: Record<string, number> = {
  today: 0,
  tonight: 0,
  tomorrow: 1,
  yesterday: -1,
  'the day after tomorrow': 2,
  'the day before yesterday': -2,
};
/** The counts "… ago" is read with, as words (dates.ts spanEn); relativeDate finds them. */
export const NUMBERS: Record<string, number> = {
  a: 1,
  an: 1,
  one: 1,
  two: 2,
  three: 3,
  four: 4,
  five: 5,
  six: 6,
};

export const en = {
  ...topics,
  ...smallTalk,
  ...clauses,
  modals: {
    why: 'verbs that never take their subject\'s person: "I can" stays "Caroline can"; "I wanna" is "Caroline wanna", as said, never "wannas"',
    words: words(
      "can cannot could will would shall should may might must did didn't can't couldn't won't wouldn't shouldn't had hadn't used ought wanna gonna gotta",
    ),
    matches: ['can', "won't", 'wanna'],
    rejects: ['think', 'am'],
  } satisfies WordsRule,
  adverbs: {
    why: 'adverbs between a subject and its verb ("I really think"): the verb after them agrees',
    words: words(
      'really just also always never still actually usually often sometimes even only totally definitely absolutely probably especially truly honestly already recently finally generally mostly simply seriously literally genuinely now too kinda sorta rarely hardly barely almost nearly not quite rather sometimes occasionally mainly personally certainly surely',
    ),
    matches: ['really', 'never', 'quite'],
    rejects: ['think', 'museum'],
  } satisfies WordsRule,
  feeling: {
    why: 'the user saying how they feel ("I feel discouraged"): a feeling even where the emotion words do not know its word; "feel like", "feel that" and "feel free" are not one',
    pattern:
      /\bI(?:'m|'ve|'d| am| have| had)?\s+(?:(?:really|do|still|just|always|often|sometimes|so|kind of|kinda|been)\s+){0,2}(?:feel|felt|feeling)\s+(?!like\b|that\b|free\b|as if\b|as though\b)\w/i,
    matches: [
      'and I feel very discouraged and unmotivated to work.',
      "I've been feeling down",
      'I felt so small',
    ],
    rejects: ['I feel like pizza.', 'I feel that it is wrong.', 'Feel free to ask.', 'You feel tired.'],
  } satisfies PatternRule,
  opinion: {
    why: 'the user saying what they think or like best ("I think the plot is very compact", "My favorite genres are rock and pop"): their view, worth more than what the companion knows',
    pattern:
      /\bI (?:really |just |still )?(?:think|believe|find|felt|feel that)\b|\bmy (?:\w+ ){0,2}favou?rites?\b/i,
    matches: [
      'I think the plot of this movie is very compact',
      'Honestly, I believe it was worth it',
      'My favorite music genres are rock and pop.',
    ],
    rejects: ['I thought so', 'you think so'],
  } satisfies PatternRule,
  advice: {
    why: 'the companion telling the user what to do ("I recommend you visit Yellow Mountain", "you could try"): advice, second to the user\'s own words even with a place in it',
    pattern:
      /\bI (?:would )?(?:recommend|suggest)\b|\byou (?:could|should|might|can) (?:try|go|visit|consider|start|look|check|read|watch|join|take)\b|\bwhy not\b/i,
    matches: ['I recommend you visit Yellow Mountain.', 'You could try a cooking class.'],
    rejects: ['I can help you.', 'You could see it from the hill.'],
  } satisfies PatternRule,
  ailment: {
    why: 'the body hurting or worn out ("I\'ve been so tired", "my back hurts"), or a misfortune ("my place got flooded", "I got laid off"): the user\'s pain as much as a sad word is, though no emotion names it',
    pattern:
      /\b(?:tired|exhausted|worn out|drained|sick|ill|unwell|in pain|hurts?|hurting|aches?|aching|swollen|sprained|fractured|broke (?:my|his|her) (?:arm|leg|wrist|ankle)|headaches?|migraines?|insomnia|can't sleep|couldn't sleep|injured|fever|in (?:the )?hospital|surgery|operation|cancer|tumou?r|stroke|heart attack|dementia|alzheimer'?s|diabetes|leukemia|chemo(?:therapy)?|diagnosed|flooded|an? (?:accident|incident|car crash)|crashed|burgled|robbed|(?:was|got) (?:fired|laid off|evicted|rejected)|lost (?:my|our) (?:job|home|house)|didn't get (?:the|an?|any) (?:job|interview|offer|place)|finds? (?:it|them) (?:really |very |so )?(?:difficult|hard)|struggling|can(?:'|’)?t seem to (?:get|figure|make|do|learn|understand|find)|(?<!\bif \w+(?:'m|'re| am| are)? )(?:having|have|had) (?:a hard time|trouble)|(?:am|is|feel|feels|been|got) stuck|creativity'?s? (?:is )?frozen|writer's block)\b/i,
    matches: [
      'Calvin is stuck with his music, like his creativity is frozen.',
      "I've been so tired lately.",
      'My back hurts.',
      // The user's mother's illness (a written chat): "She had cancer last year" lost to the race's splits.
      'She had cancer last year, so seeing her there meant everything.',
      // _check_ (health-en/7, read four rounds): the knee V1 left out for the race's other facts.
      "It's swollen.",
      'I was sick all week.',
      'my place got flooded',
      'but I find it difficult to understand.',
      "I've been learning how to make noodles, but I just can't seem to get it right.",
      'I got laid off in May.',
      "I didn't get the job.",
    ],
    rejects: [
      'I will sleep early.',
      'Illinois is far.',
      'a sickle',
      "If I'm having trouble coming up with ideas, I listen to music.",
    ],
  } satisfies PatternRule,
  irregularPast: {
    why: 'past tenses without -ed, and forms that are past or present alike (put, read): they stay as said whoever the subject becomes ("I sold it" is never "Dave solds it")',
    words: words(
      'drew blew threw went got saw made took came ran met found felt thought bought brought told said left kept gave knew wrote won lost began became heard held sat spent taught caught drove ate drank slept fell paid sent led grew threw flew forgot chose broke spoke woke wore swam sang rode hid fed fought dug understood stood meant dealt built was were had did sold shot lit stuck struck hung swung spun lent bent fled sped wound bound shook stole froze rose forgave overcame mistook withdrew put cut hit set let quit cost hurt shut spread read beat bet burst cast learnt burnt dreamt spelt smelt spilt spoilt leapt crept swept wept knelt',
    ),
    matches: ['went', 'thought', 'sold', 'put', 'learnt'],
    rejects: ['go', 'think', 'want'],
  } satisfies WordsRule,
  presentInEd: {
    why: 'present tenses that end like a past one ("I need" is "Caroline needs")',
    words: words('need feed bleed breed speed proceed succeed exceed heed shed shred wed embed seed weed'),
    matches: ['need', 'succeed'],
    rejects: ['visited', 'played'],
  } satisfies WordsRule,
  elidedAuxiliary: {
    why: 'a statement opening on a participle, its "I\'ve" or "I\'m" left out ("Been only to Rome once", "Gotta check the floor"): no subject can be written without a word nobody said, so it is quoted',
    pattern: /^(?:been|gotta|hoping|thinking|planning|trying|getting|feeling|looking|working|loving)\b/i,
    matches: [
      'Been only to Rome once.',
      'Gotta check the size & floor quality too.',
      'hoping to hear back soon',
    ],
    rejects: ['Being there was great.', 'Bennett came over.', 'Getaway weekend was fun'],
  } satisfies PatternRule,
  notVerbs: {
    why: 'words after a "you" that show it is an object ("thank you so much", "see you tomorrow")',
    words: words(
      'a an the this that these those my your his her our their its so too very much all both guys again back here there now later soon anyway though more well for to with at about from of in on by as than and or but if when because tomorrow today tonight yesterday guys either',
    ),
    matches: ['so', 'tomorrow'],
    rejects: ['think', 'went'],
  } satisfies WordsRule,
  ownFirstPerson: {
    why: 'words the speaker\'s own "I" may be in: a text without any is kept as it is',
    pattern: /\b(?:I|[Mm]e|[Mm]y|[Mm]ine|[Mm]yself)\b/,
    matches: ["I'm nervous", 'Tell me', 'My cat'],
    rejects: ['You went', 'Item', 'MY'],
  } satisfies PatternRule,
  notASubject: {
    why: 'a capitalised word opening a stage line that names no speaker ("The vet…", "We…")',
    pattern: /^(?:We|The|It|This|That|There|A|An|And|But|So)$/,
    matches: ['The', 'We'],
    rejects: ['Caroline', 'You'],
  } satisfies PatternRule,
  askedOfYou: {
    why: 'the user asking the companion to do something ("Can you remind me…?"): its you and their me cannot both be rewritten',
    pattern: /^\s*(?:(?:hey|so|and|oh|ok|okay|um|well|please)[,!]?\s+)?(?:can|could|would|will)\s+you\b/i,
    matches: ['Can you remind me what I should pack?', 'Hey, could you help me with my essay?'],
    rejects: ['Do you think I will pass?', 'You can do it', 'I wonder if you can come'],
  } satisfies PatternRule,
  secondPerson: {
    why: "the one spoken to (you, your): in the user's words, the companion",
    pattern: /\byou(?:r|rs|rself)?\b/i,
    matches: ['Thank you', 'Your cat'],
    rejects: ['I went home', 'youth'],
  } satisfies PatternRule,
  cheer: {
    why: 'the companion cheering, welcoming or guessing a feeling ("Congratulations to Lily!", "Welcome home, Biscuit!"): no memory of the user, whatever name it holds',
    pattern:
      /^(?:[A-Z][\w'’-]* said,? )?"?(?:congratulations|congrats|welcome (?:home|back)|happy birthday|good luck|well done|way to go|hang (?:in )?tight|bummer|ouch|aww+|yay|hooray|bravo|cheers|(?:I'm|I am) (?:so |very |really |also |truly )*(?:sorry to hear|glad to hear|happy to hear|happy for you|glad for you))\b/i,
    matches: [
      'Congratulations to Lily!',
      'I said welcome home, Biscuit!',
      'Mia said congratulations to Lily!',
      // The companion's sympathy or gladness (MemoryBank en tune: "I'm sorry to hear about your situation.").
      "I'm sorry to hear about your situation.",
      "I'm also happy for you.",
    ],
    rejects: ['Lily graduated from nursing school.', "You're welcome, my friend."],
  } satisfies PatternRule,
  reportedConcern: {
    why: 'a user\'s question V1 reported ("Emily asked whether…"; not the companion\'s "I wondered…")',
    pattern: /^(?!I\b)[A-Z][\w'’-]* (?:asked|wondered|worried)\b/u,
    matches: ['Emily asked whether she should go.', 'You worried whether you should tell your mom.'],
    rejects: ['I wondered why.', 'Emily said she went.'],
  } satisfies PatternRule,
  relativeDate: {
    why: 'a relative date ("tomorrow", "last Friday") gets the day it meant beside it; dates.ts spanEn reads its groups',
    pattern: new RegExp(
      String.raw`\b(?:(${Object.keys(DAYS_FROM_TODAY).join('|')})|this (morning|afternoon|evening)|last night|(last|next|this) (week|weekend|month|year|${WEEKDAYS.join('|')})|(?<!(?:\bor|\bto|[-–])\s?)(${Object.keys(NUMBERS).join('|')}|\d{1,2}) (days?|weeks?|months?|years?) ago)\b(?!['’])`,
      'gi',
    ),
    matches: ['See you tomorrow', 'last Friday', 'two weeks ago'],
    // A range ("3 or 4 days ago", "2-3 weeks ago") names no one day: its second number is none.
    rejects: [
      "yesterday's class",
      'every week',
      '3 or 4 days ago',
      '2-3 weeks ago',
      'two to three weeks ago',
    ],
  } satisfies PatternRule,
  figurativeDay: {
    why: 'before a relative date, a figure of speech ("feels like just yesterday"): no day to anchor (dates.ts)',
    pattern:
      /(?:\b(?:feels?|felt|seems?|seemed|looks?) like (?:it was |it's )?|\bas if it (?:was|were) )(?:only |just )?$/i,
    matches: ['Time flies- feels like just ', 'it seems like only ', 'as if it were '],
    rejects: ['I went there ', 'I would like ', 'I feel like going out '],
  } satisfies PatternRule,
  ...people,
  vagueTime: {
    why: 'time words that only place a statement, relative to a day nobody wrote down ("Monday" dates it)',
    words: words(
      'today yesterday tomorrow tonight weekend morning afternoon evening night week weeks month months year years ago last next since',
    ),
    matches: ['today', 'weekend'],
    rejects: ['monday', 'march'],
  } satisfies WordsRule,
  greetingBefore: {
    why: 'a name after a greeting ("Thanks, Maria!", "Hey Mel") is addressed, not told of',
    pattern:
      /(?:^|[\s,])(?:hey|hi|hello|thanks|thank you|wow|congrats|congratulations|oh|aw+|yeah|bye|sorry|dear|good morning|good night)[\s,]+$/i,
    matches: ['Thanks, ', 'Hey '],
    rejects: ['I met ', 'Hey there, I met '],
  } satisfies PatternRule,
  kin: {
    why: 'the user\'s own people and pets: "my son Tom graduated" is an event of theirs as "I graduated" is',
    pattern:
      /(?:son|daughter|kids?|children|child|baby|mom|mum|mother|dad|father|parents|wife|husband|partner|boyfriend|girlfriend|fianc[eé]e?|brother|sister|grandma|grandmother|grandpa|grandfather|grandson|granddaughter|aunt|uncle|cousin|nephew|niece|best friend|dog|cat|puppy)/,
    piece: true,
    matches: ['son', 'grandma', 'best friend'],
    rejects: ['museum', 'sun'],
  } satisfies PatternRule,
  eventTail: {
    why:
      'after I, we (or a speaker\'s name): a plan, preference or event of theirs ("I went", "Caroline is planning"); ' +
      'any verb going on ("I\'m preparing", "I\'ve been procrastinating")',
    pattern:
      /(?:(?:'m|'ve|'ll|'d|'s|'re| am| is| are| have| has| will| would| was| were| had)?(?:\s+(?:just|finally|recently|really|also|actually|already|still|never|always|totally|even|been|be|not|gonna|going to|planning to|trying to|want to|wanna|hoping to|about to))*\s+(?:will|plan|planning|want|wanted|hope|hoping|love|loved|like|liked|enjoy|enjoyed|prefer|hate|went|go|visited|started|start|finished|joined|got|bought|made|make|took|take|adopted|signed|decided|moved|met|learned|tried|saw|ran|painted|wrote|read|did|found|received|won|lost|created|volunteered|attended|booked|applied|graduated|work|worked|working|live|play|teach|volunteer|cook|bake|study|drive|paint|sing|own|grow|collect|travel|hike|swim|write|dance|coach|knit|draw|going|planning|thinking|getting|taking|doing|starting|learning|volunteering|researching|looking)|(?:'m|'re| am| are| was| were|(?:'ve| have| has| had) been)(?:\s+(?:just|finally|recently|really|also|actually|already|still|always|even))*\s+[a-z]{2,}ing)/,
    piece: true,
    matches: [
      ' went',
      "'m planning to go",
      ' have just adopted',
      "'m preparing",
      "'ve been procrastinating",
      // A habit in the present, as persona chats tell one's life ("i also volunteer at the animal shelter").
      ' also volunteer',
      ' live',
    ],
    rejects: [' museum', 'went', "'m interested", ' was excited', ' need'],
  } satisfies PatternRule,
  myOwn: {
    why: 'something of the speaker\'s own ("my mom", "our trip") is worth a little more',
    pattern: /\b(?:my|our)\s+\w+/i,
    matches: ['my mom', 'Our trip'],
    rejects: ['I went home', 'myself'],
  } satisfies PatternRule,
  firstPerson: {
    why: "a question in the first person is about the asker's own life",
    pattern: /\b(?:I|my|me)\b/,
    matches: ['Should I go?', 'Any book for me?'],
    rejects: ['Item one', 'Meet Mel'],
  } satisfies PatternRule,
  abbreviation: {
    why: 'a sentence does not end at an abbreviation\'s or an initial\'s full stop ("Dr. Lee", "J.K. Rowling"); "etc." before a capital does end one',
    pattern: /(?:^|\s)(?:mr|mrs|ms|dr|prof|st|vs|e\.g|i\.e|no|(?:[a-z]\.)*[a-z])\.$/i,
    matches: ['I saw Dr.', 'e.g.', 'a favorite J.K.', 'by J.'],
    rejects: ['It was late.', 'and so on, etc.'],
  } satisfies PatternRule,
  lowerI: {
    why: 'the pronoun typed in lower case ("i work nights", "i\'m tired"): written "I", the speaker\'s own',
    pattern: /(?<![\p{L}\p{N}.'’-])i(?=['’](?:m|ve|ll|d)\b|(?![\p{L}\p{N}.'’-]))/gu,
    matches: ['i work nights', "i'm tired", 'so i went', "i'll go"],
    rejects: ['i.e. this', 'it is', "i's", 'Hawaii'],
  } satisfies PatternRule,
  roleWord: {
    why: 'a label that is a role word ("user:") names a speaker even if it opens one line only',
    pattern: /user|assistant|system|human|ai|bot|usr|model|companion/i,
    piece: true,
    matches: ['user', 'Assistant'],
    rejects: ['Caroline', 'users'],
  } satisfies PatternRule,
  placeholder: {
    why: 'what a chat app puts for what is not text ("[sticker]", "[image: …]"): no words of anyone',
    pattern: /sticker|emoji|emoticon|image|img|gif|voice|audio|video|file/i,
    piece: true,
    matches: ['sticker', 'image'],
    rejects: ['photo', 'stickers'],
  } satisfies PatternRule,
  ...questions,
  said: {
    why: 'a stage line opening with who said it ("Caroline said it was…"): what follows counts',
    pattern: /[A-Z][\w'-]* said /iu,
    piece: true,
    matches: ['Caroline said ', 'Jon said '],
    rejects: ['Caroline said', 'said '],
  } satisfies PatternRule,
  personalPronoun: {
    why: 'words fronted before a clause are its own ("Pottery and gardening, you are…") unless they hold a pronoun',
    pattern: /\b(?:i|you|we|he|she|it|they|me|us|him|her|them)\b/i,
    matches: ['and you,', 'Me too,'],
    rejects: ['Pottery and gardening,'],
  } satisfies PatternRule,
  subjectPronoun: {
    why: 'a clause opening on its subject pronoun takes the words fronted before it',
    pattern: /^(?:i|you|we|he|she|it|they)\b/i,
    matches: ['you are building a whole routine.', 'I went home.'],
    rejects: ['Juno went home.', 'Items are here.'],
  } satisfies PatternRule,
  ...feelings,
  stopwords: {
    why: 'words that carry no fact: never a content word or a name',
    words: words(
      'a an the and or but if of to in on at for with from by as is am are was were be been being it its this that these those i you he she we they me him her us them my your his our their what which who whom do does did have has had not no so too very just can will would should could about into over than then there here when where how all any some more most also only own same such up down out off again once',
    ),
    matches: ['the', 'which'],
    rejects: ['museum', 'pottery'],
  } satisfies WordsRule,
  filler: {
    why: 'interjections, politeness and small talk around facts: a clause of only these is filler',
    words: words(
      "wow hey hi hello thanks thank yeah yes yep yup oh ah aw aww awww haha hahaha lol omg cool nice sure okay ok totally really definitely absolutely sounds sound seems glad gosh congrats congratulations bye welcome hmm um uh well anyway great awesome good agree true right exactly much lot lots thing things something anything stuff kind sort pretty know think guess mean get got getting go going gonna let let's keep hope hear heard tell talk talking see seeing say said sounds like really always never ever even still also way lovely amazing wonderful fantastic incredible honestly seriously literally wait can't cant fun safe posted care luck soon catch appreciate miss ya",
    ),
    matches: ['wow', 'congrats'],
    rejects: ['museum', 'adopted'],
  } satisfies WordsRule,
  timeWords: {
    why: 'words that name a time or an amount: a fact in themselves',
    words: words(
      'today yesterday tomorrow tonight weekend morning afternoon evening night week weeks month months year years ago last next since monday tuesday wednesday thursday friday saturday sunday january february march april may june july august september october november december spring summer autumn fall winter christmas birthday anniversary two three four five six seven eight nine ten eleven twelve twenty thirty forty fifty hundred thousand third twice',
    ),
    matches: ['tomorrow', 'friday'],
    // "one by one", "at first", "a second", "once" tell no amount or time.
    rejects: ['museum', 'soon', 'one', 'first', 'second', 'once'],
  } satisfies WordsRule,
  timeFirst: {
    why: 'a time or a stance before the subject: "Recently, Lucy has been…" says who as well as "Lucy has…"',
    pattern:
      /^(?:(?:recently|lately|actually|honestly|today|yesterday|tonight|now|also|so|well|okay|oh|btw|by the way|anyway|in addition|besides(?: that| this| \w+ing)?|usually|sometimes|finally|the other day|a (?:few|couple of) (?:days|weeks) ago|(?:on |last |this )?(?:mon|tues|wednes|thurs|fri|satur|sun)day|this (?:morning|afternoon|evening|week|weekend)|last (?:night|week|weekend|month|year))(?:\s*\([^)]*\))?,?\s+)+/iu,
    matches: [
      'Recently, ',
      'Today (29 April) ',
      'Actually, lately ',
      'Besides cooking, ',
      'Last Monday (12 September) ',
    ],
    rejects: ['Recent news ', 'Today'],
  } satisfies PatternRule,
  commonOpener: {
    why: 'a sentence\'s common first word, never a name\'s start: "Next Friday works", "Recently Lucy has…" after "said"',
    words: words(
      'next last this that these those every each some recently lately finally actually honestly usually sometimes anyway also',
    ),
    matches: ['next', 'recently'],
    rejects: ['paws', 'friday'],
  } satisfies WordsRule,
  monthOrVerb: {
    why: 'a month only when capitalised: "you may try", "they march" are verbs, "May" is the month',
    words: words('may march'),
    matches: ['may', 'march'],
    rejects: ['june', 'april'],
  } satisfies WordsRule,
  verbs: {
    why: 'verbs a statement cannot do without: a short clause with none is a fragment',
    words: words(
      'am is are was were be been being have has had do does did can could will would shall should may might must go get got make made know think want love like need feel see say said come take took give gave went let keep tell told find found try look put run ran buy bought bring brought leave left meet met pay paid read write wrote sing sang eat ate win won lose lost hope wish plan start stop help call ask play work live move stay visit watch cook walk sleep sit stand open close begin began',
    ),
    matches: ['went', 'paid'],
    rejects: ['museum', 'Fifth'],
  } satisfies WordsRule,
  attribution: {
    why: 'the words a stage\'s prose says who spoke with ("Caroline said", "you asked", "shared a photo"): no information of their own in V2',
    words: words('said asked wondered worried shared photo'),
    matches: ['said', 'photo'],
    rejects: ['went', 'museum'],
  } satisfies WordsRule,
};
