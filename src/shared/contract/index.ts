// Wire field names are snake_case; fields renamed in 0.1 keep former names until 0.2 (../wire-names.ts).
/**
 * The API contract: every operation any shell can call. Adding an operation is one entry
 * in one feature file, joined here, and one row in the audit table (src/server/audit-ops.ts: what
 * serve mode records of it). Pure TypeScript — no Node, no DOM, no electron.
 */
import type { z } from 'zod';
import { auditContract } from './audit';
import { casesContract } from './cases';
import { chatContract } from './chat';
import { firmContract } from './firm';
import { ingestContract } from './ingest';
import { matterContract } from './matter';
import { modelsContract } from './models';
import { searchContract } from './search';
import { viewerContract } from './viewer';
import type { OpSpec, OutputOf } from './op';

export const contract = {
  ...casesContract,
  ...matterContract,
  ...ingestContract,
  ...modelsContract,
  ...searchContract,
  ...viewerContract,
  ...chatContract,
  ...firmContract,
  ...auditContract,
} satisfies Record<string, OpSpec>;

export type Contract = typeof contract;
export type OpName = keyof Contract;
/** What a caller may send (before defaults/transforms). */
export type OpInput<N extends OpName> = z.input<Contract[N]['input']>;
/** What a handler receives (after validation). */
export type OpParsed<N extends OpName> = z.output<Contract[N]['input']>;
export type OpOutput<N extends OpName> = OutputOf<Contract[N]>;

export const opNames = Object.keys(contract) as OpName[];

export function isOpName(name: unknown): name is OpName {
  return typeof name === 'string' && Object.hasOwn(contract, name);
}

export * from './audit';
export * from './common';
export * from './cases';
export * from './chat';
export * from './firm';
export * from './ingest';
export * from './matter';
export * from './models';
export * from './search';
export * from './viewer';
export type { OpSpec } from './op';
