/**
 * What `memfade doctor` finds (docs/cli.md): the application's report, which the CLI prints
 * as a table or as JSON. Gathered by diagnose.ts, judged by judge.ts.
 */
import type { DuplicateCardKey, IndexCheck } from '@memfade/db';
import type { CardProblem, DatesReport, ProductDataField, UnmappedRole } from './checks.js';
import type { CardFieldCheck, FieldCheck, NightEstimate, SampleSurvey } from './survey.js';

export interface RedisCheck {
  address: string;
  reachable: boolean;
  maxmemoryPolicy?: string;
  aof?: boolean;
  rdb?: boolean;
  error?: string;
}

export interface WritesReport {
  /** `beside`: memfade's own field names; `prefix`: under writes.prefix; `side`: writes.collection. */
  mode: 'beside' | 'prefix' | 'side';
  /** The collection memfade writes its fields to. */
  collection: string;
  /** writes.prefix, in prefix mode. */
  prefix?: string;
  /** Whether the product's memory documents are ever written (never in side-collection mode). */
  productDocumentsWritten: boolean;
  /** Side-collection mode: how many side documents exist, and how far the nightly enrolment has read. */
  sideDocuments?: number;
  enrolledThrough?: string;
  /** Joined turns: the turn collection and its keys. */
  turns?: { collection: string; memoryId: string; order: string };
}

/** The role card collection as doctor sees it: cards counted apart from the memories that use them. */
export interface RoleCardReport {
  /** The collection, how cards are keyed, and how many documents it holds (none read with a default card). */
  collection: string;
  keyedBy: string;
  documents: number;
  /** Distinct cards the sampled memories use, and how many of those core refuses. */
  used: number;
  invalid: number;
  /** The sampled memories by their card: found and valid, none, an invalid one (and one such memory). */
  memories: SampleSurvey['memoriesByCard'];
  problems: CardProblem[];
  /** Keys held by more than one card (the first id is the card memfade uses), and how many keys in all. */
  duplicates: { total: number; keys: DuplicateCardKey[] };
}

export interface DoctorReport {
  memories: number;
  sampled: number;
  /** The mapping in use: MEMFADE_MAPPING's file, or memfade's own field names. */
  mapping: string;
  fields: FieldCheck[];
  /** The oldest and newest creation date of the product's memories, and how many are out of range. */
  dates: DatesReport;
  /** Where memfade writes, and whether it writes the product's memory documents at all. */
  writes: WritesReport;
  /** The mapped role card fields and how many found cards hold each (empty with a default card). */
  roleCardFields: CardFieldCheck[];
  badInput: SampleSurvey['problems'];
  /** Fields of memfade's name holding the product's data in sampled memories (doctor exits 1). */
  productData: ProductDataField[];
  roleCards: RoleCardReport;
  /** Conversation roles that are neither user nor assistant once mapped, in the sample. */
  unmappedRoles: UnmappedRole[];
  languages: SampleSurvey['languages'];
  sizes: SampleSurvey['sizes'];
  nights: { night: string; v1: number; v2: number }[];
  tonight: NightEstimate;
  /** NIGHT_BUDGET_USD / NIGHT_BUDGET_TOKENS (0 = none), compared with tonight's estimate. */
  budget: { usd: number; tokens: number };
  indexes: (IndexCheck & { withoutIt?: string })[];
  /** Unique indexes an earlier memfade made on the product's collections (to drop). */
  uniqueOnYours: { collection: string; name: string; keys: Record<string, unknown> }[];
  /** Indexes `--create-indexes` created this time, or could not create (with the error). */
  created?: { collection: string; name: string; error?: string }[];
  redis: RedisCheck;
  vectorStore: { kind: string; where: string; status: string };
  /** The sampled memories a night will fail as bad input (a field, no role card, an invalid one). */
  willFail: number;
  /** Why memfade cannot work on this database as configured (exit code 1 when any). */
  errors: string[];
  /** What works but should be fixed. */
  warnings: string[];
}
