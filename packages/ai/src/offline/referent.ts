/**
 * How a speaker is written: 1st person (我 / I), 2nd (你 / you) or 3rd (a name). voice.ts decides it
 * from the role card and the conversation; english.ts and lines.ts write it.
 */
export interface Referent {
  person: 1 | 2 | 3;
  name: string;
}
