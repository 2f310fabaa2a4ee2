/**
 * A noun-phrase fragment: an English sentence of three words or more with no verb and no subject
 * ("Less red meat, more fiber, and walking 30 minutes a day.", "Dancer Pose (Natarajasana)."): a
 * qualifier or an answer whose statement stayed behind. A heuristic of its own (the compressor's
 * verb list is not reused, so a measure of it does not share its blind spots): a finite verb is an
 * auxiliary, a contraction, a common verb or an -ed form. Chinese is not measured: a verb there has
 * no ending to tell it by.
 */
const SUBJECT = /^(?:i|you|he|she|it|we|they|there|this|that|these|those)$/i;
const FINITE =
  /^(?:is|are|was|were|am|be|been|being|has|have|had|do|does|did|will|would|can|could|shall|should|may|might|must|go|goes|went|get|gets|got|make|makes|made|take|takes|took|love|loves|like|likes|want|wants|need|needs|think|thinks|thought|know|knows|knew|feel|feels|felt|see|sees|saw|say|says|said|come|comes|came|give|gives|gave|find|finds|found|tell|tells|told|keep|keeps|kept|let|lets|try|tries|help|helps|play|plays|work|works|live|lives|start|starts|hope|hopes|sounds?|looks?|seems?|means?|enjoy|enjoys|miss|misses|plan|plans|sleep|sleeps|slept|run|runs|ran|buy|buys|bought|eat|eats|ate|read|reads|write|writes|wrote|visit|visits|call|calls|leave|leaves|left|bring|brings|brought|began|begun|built|caught|chose|drew|drove|fell|fought|flew|forgot|grew|heard|held|hid|hit|hurt|laid|led|lent|lost|meant|met|paid|put|quit|rode|rang|rose|sang|sat|sent|set|shook|shot|shut|sold|spoke|spent|stood|stole|struck|swam|taught|threw|understood|woke|wore|won)$/i;

const DETERMINER = /^(?:the|a|an|each|every|my|your|his|her|our|their|this|that)$/i;
/** An adverb between a subject and its verb ("Jon also uses", "Linda usually considers"). */
const ADVERB =
  /^(?:also|usually|really|still|often|always|never|sometimes|just|even|only|rarely|already|now)$/i;

export function isFragment(sentence: string): boolean {
  const words = sentence.match(/[A-Za-z][A-Za-z'’-]*/g) ?? [];
  if (words.length < 3) return false;
  // A name's verb ends in -s ("Melanie appreciates", "Each stroke carries"), an adverb may come
  // between them ("Jon also uses").
  const subjectAt = (i: number) => /^[A-Z]/.test(words[i] ?? '') || DETERMINER.test(words[i - 1] ?? '');
  const afterSubject = (i: number) =>
    /[a-z]{2}s$/.test(words[i]!) &&
    !/ss$/.test(words[i]!) &&
    (subjectAt(i - 1) || (ADVERB.test(words[i - 1] ?? '') && subjectAt(i - 2)));
  return !words.some(
    (w, i) =>
      SUBJECT.test(w) ||
      FINITE.test(w) ||
      /['’](?:s|re|ve|ll|d|m|t)$/i.test(w) ||
      /[a-z]{2}ed$/i.test(w) ||
      afterSubject(i),
  );
}
