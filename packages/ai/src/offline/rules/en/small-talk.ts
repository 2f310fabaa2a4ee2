import type { PatternRule } from '../types.js';

// The English pack's talk about the talk: catching up, taking advice in, saying what day it is, the companion
// saying what it is or offering help. Each says nothing of the user (offline scoring.ts weighs none of it; dates.ts anchors no
// event in it).

export const smallTalk = {
  catchUp: {
    why: 'catching up ("since we last talked", "been a busy week", "spill the beans"): says nothing happened yet; its words count for nothing',
    pattern:
      /\b(?:since (?:we|our) (?:last )?(?:talked|chatted|spoke|chat|talk)|long time no (?:see|talk|chat)|spill the beans|what'?s up|anything new|how(?:'ve| have) you been|how'?s it going|(?:it'?s |it has |has )?been (?:a |quite a |such a )?(?:busy|crazy|hectic|wild|long) (?:week|month|few days|few weeks|time)|(?:crazy |a lot of |lots of )?(?:stuff|things?|lots) (?:has|have|'s) been (?:happening|going on)|(?:gotta|got to|have to|need to|must) (?:run|go)(?: now)?|let'?s (?:chat|talk) (?:again|later|soon)(?: next time)?|(?:happy to |glad to )?chat with you|ask you (?:a |one |some )?questions?|(?:haven'?t|have not|hasn'?t) (?:talked|chatted|spoken|caught up)(?: in (?:a (?:while|few days|few weeks|bit)|ages|forever|so long))?|(?:it'?s|it has) been (?:a while|ages|forever|so long))\b/giu,
    matches: [
      'Been a busy week since we talked.',
      "Crazy stuff's been happening since we last chatted.",
      'Spill the beans!',
      "Haven't talked in a few days.",
      "It's been a while!",
      'I need to go now.',
      "Let's chat again next time.",
      'Today I wanted to ask you a question.',
      "I'm happy to chat with you and be helpful.",
    ],
    rejects: [
      'I went hiking last week.',
      'Since then I have been painting.',
      "I haven't seen my dad in years.",
    ],
  } satisfies PatternRule,
  acknowledged: {
    why: 'taking the other\'s advice in ("I\'ll give it a try", "I\'ve taken note of that"): the advice said it; alone, its "it" is nothing',
    pattern:
      /\b(?:(?:I|you|we|[A-Z][\w'’-]*)(?:'ll| will|'m going to| am going to| are going to) (?:give (?:it|that|them) a (?:try|shot|go)|try (?:it|that|them)(?: out)?|think about (?:it|that)|consider (?:it|that)|keep (?:it|that|this|them) in mind|be careful|do (?:my|our|your|his|her|[A-Z][\w'’-]*'s) best|(?:consider|follow|take) (?:your|the|this) (?:advice|suggestions?|recommendations?))|(?:I|you)(?:'ve| have) (?:taken|made a) note of (?:it|that|this|them))\b/giu,
    matches: [
      "That sounds like a good idea. I'll give it a try.",
      "Okay, I've taken note of that.",
      "I'll keep that in mind!",
      'Lucy will give them a try.',
      "Gary will do Gary's best.",
      "I'll consider your advice and make my own decision.",
    ],
    rejects: ['I will give my mom a call.', "I'll try the new bakery.", 'I took notes in class.'],
  } satisfies PatternRule,
  aboutTheTalk: {
    why: 'talk about the conversation itself ("I want to talk to you", "see you tomorrow", "how are you today"): its date places no event',
    pattern:
      /\b(?:talk(?:ing)?|chat(?:ting)?|conversations?|catch(?:ing)? up|see you|talk to you|how are you|how have you been|how's it going)\b/i,
    matches: [
      'Today I want to talk to you about it',
      'See you tomorrow!',
      'Hi how are you doing today?',
      "Let's continue our conversation tomorrow.",
    ],
    rejects: ['I went to the museum today'],
  } satisfies PatternRule,
  preface: {
    why: 'a line announcing a question ("I have a question for you"), only thanking, or promising news: alone it tells nothing',
    pattern:
      /^(?:[A-Z][\w'’-]*(?: [A-Z][\w'’-]*)? said,? "?)?(?:(?:I'?ll|I will) (?:make sure to |be sure to )?keep you (?:updated|posted|in the loop)|(?:keep|keeping) (?:those|my|your|our) fingers crossed|wishing you (?:an? )?(?:\w+ ){0,3}(?:day|week|weekend|evening|night|time|trip)(?: ahead)?(?:,? my friend)?|wishing you all the best(?: until we meet again)?|looking forward to seeing you|(?:look at|check out|take a look at) (?:this|that|my) (?:photo|pic|picture)\b.*|look what (?:an? )?\w+(?: \w+){0,5}!?|(?:I|[A-Z][\w'’-]*) (?:have|has) (?:a few |some )?(?:more )?(?:great |good |exciting |big )?news)[.!"”]*$|\b(?:let'?s|we can|we'?ll|we will) (?:stay|keep) in touch\b|^(?:[A-Z][\w'’-]*(?: [A-Z][\w'’-]*)? said,? "?)?(?:I'?m |I am )?(?:so |really )?glad (?:I could|my support|you (?:like|liked|enjoy|enjoyed) (?:it|them|that))|^(?:I'?m|I am|[A-Z][\w'’-]* is) (?:here and )?listening[.!]*$|\blooking forward to (?:the |our )?next (?:chat|talk|conversation|encounter|meeting)\b|^(?:[A-Z][\w'’-]*(?: [A-Z][\w'’-]*)? said,? "?)?thank(?:s| you)(?: (?:so|very) much)?(?: for (?:your|the|all (?:the|your)) (?:\w+ ){0,2}(?:advice|suggestions?|help|recommendations?|tips?|support|encouragement|company|listening))?(?:,? (?:my )?(?:\w+ ){0,2}(?:assistant|friend|companion|buddy))?[.!"”]*$|\bhave (?:a|another|some) (?:quick |small |little )?questions? (?:for|to ask) you\b|\b(?:want|wanted|would like|'d like) to (?:share (?:it|this|something) with you|ask (?:you )?(?:what you think|for your (?:opinion|thoughts|advice))|ask you (?:a|some|another) questions?)\b|\b(?:I'?d|I would) love to hear (?:your thoughts|more|(?:all )?about (?:it|them|that)|what you think)\b|^(?:[A-Z][\w'’-]*(?: [A-Z][\w'’-]*)? said,? "?)?(?:please )?tell me more\b|\b(?:my )?first time (?:chatting|talking) (?:with|to) you(?: today(?: \([^)]*\))?)?(?:,? and I'?m (?:so |really )?(?:glad|happy) to meet you)?[.!"”]*$|^(?:[A-Z][\w'’-]*(?: [A-Z][\w'’-]*)? said,? "?)?(?:hope you(?:'re| are) doing (?:ok|okay|well|great|good|fine)|keep it up|show (?:me|[A-Z]\w*) what you(?:'ve)? got|take a look at (?:the photo|what\b.*)|enjoy the \w+)[.!"”]*$/i,
    matches: [
      'Today I have a question for you.',
      'I wanted to share it with you.',
      'I also want to ask you what you think.',
      'Jason said, "Thank you for your advice, my helpful assistant!"',
      'Joanna said, "I\'ll make sure to keep you updated."',
      'Keep those fingers crossed!',
      "Let's stay in touch!",
      'Frank said we can stay in touch and chat about other topics.',
      'Deborah said, "Glad I could bring a smile to your face."',
      'Deborah is listening.',
      'Calvin said, "Wishing you a harmonious day ahead, my friend!"',
      'Calvin said, "Wishing you all the best until we meet again!"',
      'Dave said looking forward to seeing you.',
      'Look at this photo showcasing how wonderfully we spent our time!',
      // _check_: a photo shown, in a V2 ("Look what a wonderful view from living room!").
      'Look what a wonderful view from living room!',
      'Calvin has a few more great news!',
      'Jolene said, "Looking forward to the next chat!"',
      // The user asking to hear more is no wish of theirs ("I'd love": a plan's bonus put it in a V2).
      'Deborah said, "I\'d love to hear your thoughts."',
      'Tell me more about it!',
      // _check_: the other's cheer in a V2 ("Show John what you've got!", "Jon said, "Hope you're doing ok!"").
      "Show John what you've got!",
      'Jon said, "Hope you\'re doing ok!"',
      'Keep it up!',
      'Take a look at the photo!',
      'Enjoy the gaming!',
      // Kept in a V2 over the girl who shared her food on the mountain: talk about the talk.
      'Sunny said, "This is my first time chatting with you and I\'m glad to meet you."',
    ],
    rejects: [
      // The feeling is the user's (_check_: "Luna feels a bit nervous" was left out as talk about the talk).
      "It's my first time chatting with you today and I feel a bit nervous.",
      'I have a question about my knee that worries me',
      "I'd love to hear your band play live.",
      'Thank you for your advice, I will try running.',
      'Keep it up until the end of the month, and then rest.',
      'Take a look at the photo I sent of the flooded basement.',
    ],
  } satisfies PatternRule,
  todayIs: {
    why: 'a clause that only says what day or weather it is ("Today is Sunday,", "The weather is nice today."): small talk',
    pattern:
      /^(?:[A-Z][\w'’-]*(?: [A-Z][\w'’-]*)? said,? "?)?(?:today(?: \([^)]*\))? is (?:a )?(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday|the weekend|weekend|(?:really |very )?(?:beautiful|nice|lovely|great|good|sunny) day)|the weather (?:is|was) (?:really |so |very |quite )?(?:nice|good|great|beautiful|lovely|sunny|wonderful)(?: today)?(?: \([^)]*\))?)[,.!"”]*$/i,
    matches: [
      'Today is Sunday,',
      'Today (3 May) is the weekend.',
      'Emily said today (30 April) is a beautiful day.',
      'Frank said the weather is really nice today (5 May).',
    ],
    rejects: [
      'Today is Sunday and I am planning to watch a movie.',
      'Today is my birthday.',
      'The weather is nice today, so I went hiking.',
    ],
  } satisfies PatternRule,
  aiSelf: {
    why: 'the companion saying what it is ("I\'m your AI companion", "as an AI, I don\'t…"): not a memory of the user',
    pattern:
      /\b(?:I'm|I am|as|being|my name is|is)\s+(?:just\s+|only\s+|simply\s+)?(?:(?:an?|your)\s+)?(?:[^\s.!?]+[\s,]+){0,2}(?:AI\b|(?:companion|virtual|chat) (?:assistant|bot)\b)|\b(?:I'm|I am|as) (?:an? |your )?assistant\b|\bI (?:don't|do not) (?:have|need) (?:an? |any )?(?:(?:specific |actual )?(?:physical |real )?(?:body|eyes|form|senses?(?: of \w+)?|food|location|presence)|tasks)\b|\bI (?:believe|think|hope) [^.!?]{0,30}\bserve humanity\b/i,
    matches: [
      "I'm your AI companion.",
      'I said these skills may be different from my nature, but I believe having them can better serve humanity.',
      "Although I don't have eyes, I can search for it.",
      "I don't have a body to participate directly in sports.",
      "As an AI, I don't have a physical body.",
      "I'm your chat companion AI friend.",
      "As an intelligent companion assistant, I don't have actual visual function.",
      // "I'm 小暖, your AI companion." as V1 writes it in 小暖's name.
      '小暖 said 小暖 is 小暖, your AI companion.',
      "As an assistant, I don't have a sense of taste.",
      "I don't have a specific physical location.",
      "I don't have any tasks, John Zhang.",
    ],
    rejects: ['AI will change how we work.', 'Are you an AI researcher?', "I don't have a car."],
  } satisfies PatternRule,
  companionSelf: {
    why:
      'an AI companion speaking of itself, not of the user ("I also love reading.", "I\'ll keep trying too."): its ' +
      "likes and plans are no memory of the user's; a companion who is a person (LoCoMo's) keeps them",
    pattern: /^(?:I said (?=I\b))?I\b(?! (?:said|asked)\b)(?!.*\byou)/u,
    matches: [
      'I also love reading.',
      "I'll keep trying too.",
      'I really like that idea.',
      'I said I also love reading.',
    ],
    rejects: [
      'I said walking can improve cardiovascular health.',
      'I asked how the trip went.',
      'It is nice.',
      'I would like to recommend a book to you.',
    ],
  } satisfies PatternRule,
  reaction: {
    why: 'a few words with no subject reacting to what the other showed or told ("looks delish!", "must feel so liberating!"): about the other',
    pattern: /^(?:that |this |it )?(?:looks|sounds|seems|must (?:be|feel|have been))\b/i,
    matches: ['looks delish!', 'Must feel so liberating!', 'That sounds like a blast.'],
    rejects: ['It looked like rain all day, so I stayed home.', 'I must be at work by nine.'],
  } satisfies PatternRule,
  offer: {
    why: 'the companion offering more help or taking thanks ("Feel free to chat with me anytime."): service talk, no memory of the user',
    pattern:
      /\b(?:feel free to|don'?t hesitate to|(?:you can|you could) always (?:come|chat|talk|ask|reach)|if you (?:have|need) any (?:more |other |further )?(?:questions|help)|is there anything else|how (?:may|can) I (?:assist|help)|let me know if (?:you|there)|you'?re (?:very |most )?welcome|my pleasure|(?:it'?s|it is) (?:an?|my) (?:great )?(?:honou?r|pleasure) to (?:serve|help|assist) you|(?:I'?m|I am|I'?ll|I will) (?:always )?(?:be )?(?:here for you|happy to help|glad to help|glad I could help|happy I could help)|(?:I'?m|I am) (?:always )?(?:here to (?:help|listen|support|provide you|accompany you|keep you company)|looking forward to (?:hearing|seeing) (?:about |more )?(?:your|how|what))|I (?:hope|wish) (?:that )?we (?:can|could|will) (?:become|be) (?:good |great |best )?friends|I wish you (?:success|happiness|all the best|good luck|a (?:great|good|nice|wonderful) (?:time|day|trip))|I hope (?:your \w+|everything|things|it all) (?:goes?|will go) (?:smoothly|well)|I (?:hope|wish) (?:that )?(?:you|your)\b|I will do my best to help|(?:happy|glad) to (?:continue )?(?:chat|talk)\w*|share your (?:\w+ ){0,3}with me\b|I can help you (?:search|find|look|recommend)|I can (?:also )?(?:provide|offer|give) you (?:with )?(?:some|more|any|a few)|I can accompany you|whenever you need me|(?:glad|happy) (?:that )?you (?:came|come) back|want to share with me|I'?m all ears|glad to hear your thoughts|(?:I'?ll|I will) always support (?:you|your \w+)|(?:I'?ll|I will) always be there for you)\b|\bI hope to (?:provide|give|offer) you (?:with )?some (?:suggestions|advice|help)/iu,
    matches: [
      // _check_ MemoryBank en Henry (seed 3023's reading): kept in V2 as "I said since you have a problem, I hope…".
      'Since you have a problem, I hope to provide you with some suggestions.',
      'I said if you have any questions or need help, feel free to come back and chat with me anytime.',
      "I said you're welcome, I'm happy to help you improve.",
      'Is there anything else I can assist you with?',
      'You can always come to me for a chat.',
      "I'm always happy to help you.",
      "I'm looking forward to seeing your beautiful works.",
      'I hope we can become good friends!',
      "It's an honor to serve you.",
      'I hope your work goes smoothly!',
      'I am here to provide you with conversation and companionship services.',
      'I wish you success at work and happiness in life.',
      'I hope your next trip will be successful and rewarding.',
      'I hope you can recover and approach all the challenges of life with a positive attitude.',
      'I said if you need me to give you some fitness-related knowledge, I will do my best to help you.',
      'I am happy to continue chatting with you.',
      'I said share your new photography work with me.',
      'I can help you search for related information.',
      'I can provide you with some cooking tips and recipes.',
      'I said whenever you need me, just open the corresponding device and I can accompany you to chat.',
      "I'm glad you came back to chat with me!",
      "It's great that you want to share with me, I'm all ears!",
      "I'm glad to hear your thoughts on it.",
      'I will always support your decision no matter what.',
      'I will always be there for you, providing support and help.',
    ],
    rejects: [
      'Lucy feels free to travel now.',
      'You can come to the party on Sunday.',
      'You are welcome at the club.',
      'I hope the rain stops.',
      'My sister will share the car with me.',
    ],
  } satisfies PatternRule,
};
