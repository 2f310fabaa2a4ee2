/**
 * One short worked example per stage and language (docs/design.md §6): who is who, the date resolved,
 * the question turned into its concern, the feeling taken from the user's side. The result is
 * shown as YAML (a `>` value is one line folded for reading) so every line of the prompt stays
 * short; the reply itself follows the JSON format the call defines. Part of the stable prefix.
 */
export const EXAMPLES = {
  v1: {
    zh: `对话日期：2026年3月5日（星期四）；角色：小雅；用户：阿明
<example_memory>
user: 明天我要去杭州面试了，好紧张，你说我能过吗？
assistant: 你准备了那么久，一定没问题！几点的面试？
user: 上午十点，在西湖边一家做游戏的公司。面完我想顺路去看看断桥。
</example_memory>
结果：
compressedContent: >
  3月5日（周四）阿明告诉我，他3月6日上午十点要去杭州西湖边一家游戏公司面试，很紧张，
  担心自己通不过；我鼓励了他。他打算面完顺路去看断桥。
keyPoints:
  - 阿明3月6日上午十点在杭州西湖边的游戏公司面试
  - 阿明面试后打算去看断桥
emotionalHighlights:
  - 阿明对面试很紧张，担心通不过
personalityAdjustment:
  emphasized: [阿明的紧张]
  deemphasized: [公司的具体情况]`,
    en: `Conversation date: Thursday, 5 March 2026; companion: Mia; user: Sam
<example_memory>
user: Tomorrow's my interview in Boston and I'm so nervous. Do you think I'll make it?
assistant: You've prepared for weeks, you'll do great! What time is it?
user: 10 am, at a game studio by the harbor. Afterwards I want to walk the Freedom Trail.
</example_memory>
Result:
compressedContent: >
  On Thursday 5 March Sam told me about his job interview at 10 am on Friday 6 March, at a game
  studio by Boston harbor. He was nervous and afraid he would not make it; I reminded him how
  long he had prepared. He planned to walk the Freedom Trail afterwards.
keyPoints:
  - Sam's job interview at 10 am on Friday 6 March, at a game studio by Boston harbor
  - Sam plans to walk the Freedom Trail after it
emotionalHighlights:
  - Sam was nervous and afraid he would not make it
personalityAdjustment:
  emphasized: [Sam's nerves]
  deemphasized: [details of the studio]`,
  },
  v2: {
    zh: `对话日期：2026年3月5日（星期四）；角色：小雅；用户：阿明
<example_memory>
3月5日（周四）阿明告诉我，他3月6日上午十点要去杭州西湖边一家游戏公司面试，很紧张，
担心自己通不过；我鼓励了他。他打算面完顺路去看断桥。
【关键点】阿明3月6日上午十点在杭州西湖边的游戏公司面试；阿明面试后打算去看断桥
【情感高光】阿明对面试很紧张，担心通不过
</example_memory>
结果：
coreMemory: 2026年3月5日，阿明跟我说第二天要去杭州一家游戏公司面试，紧张得怕通不过，我给他打了气。
coreMemoryPoints:
  - 阿明3月6日在杭州面试一家游戏公司
memoryTraces:
  clear: [阿明要去杭州面试，很紧张]
  fuzzy: [面试在上午十点，公司在西湖边]
  vague: [他面完想去看断桥]
forgotten:
  details: [公司的具体位置]
  reason: 地点细节不影响这段记忆的意义
emotionalResidue:
  dominantEmotion: 紧张
  intensity: 0.7
  summary: 阿明面试前的紧张和不安
personalityNotes: 我记住的是他的紧张，因为我在意他的感受。`,
    en: `Conversation date: Thursday, 5 March 2026; companion: Mia; user: Sam
<example_memory>
On Thursday 5 March Sam told me about his job interview at 10 am on Friday 6 March, at a game
studio by Boston harbor. He was nervous and afraid he would not make it; I reminded him how
long he had prepared. He planned to walk the Freedom Trail afterwards.
[Key points] Sam's job interview at 10 am on Friday 6 March; Freedom Trail walk after it
[Emotional highlights] Sam was nervous and afraid he would not make it
</example_memory>
Result:
coreMemory: >
  On 5 March 2026 Sam told me he had a job interview at a Boston game studio the next day; he
  was afraid he would not make it, and I cheered him on.
coreMemoryPoints:
  - Sam's job interview at a Boston game studio on 6 March
memoryTraces:
  clear: [Sam's interview in Boston and his nerves]
  fuzzy: [the 10 am start, the studio by the harbor]
  vague: [a walk he planned afterwards]
forgotten:
  details: [where exactly the studio was]
  reason: the place does not change what the day meant
emotionalResidue:
  dominantEmotion: nervousness
  intensity: 0.7
  summary: Sam's nerves before his interview
personalityNotes: I kept his nerves, because how he feels matters to me.`,
  },
} as const;
