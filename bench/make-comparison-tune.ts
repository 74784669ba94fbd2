/**
 * Writes bench/data/comparison-tune-questions.jsonl, the comparison set that may be tuned on (the
 * frozen comparison-questions.jsonl may not): `node --import tsx bench/make-comparison-tune.ts`.
 * The same ten CUAD categories, wordings of its own, pairs drawn with another seed from the
 * contracts of the "eval cuad-clauses" case that have a company name in their file name, never a
 * contract the frozen set asks the same category of (so no clause it scores is tuned on; a category
 * with few such contracts gets fewer questions). Run once; the file is committed.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { cuadClauses } from './cuad-clauses';

const here = import.meta.dirname;
const spansFile = path.resolve(here, '..', '..', 'shared', 'corpus', 'cuad', 'derived_clause_spans_selected.jsonl');
const spans = readFileSync(spansFile, 'utf8')
  .split('\n')
  .filter(Boolean)
  .map((l) => JSON.parse(l) as { pdf: string; category: string; pdf_pages: number[] | null });

const WORDINGS: Record<string, string[]> = {
  'Governing Law': [
    'Under which law is each of the {A} and {B} contracts interpreted?',
    'If we sued under the {A} deal or the {B} deal, whose law would apply?',
    'Governing law: {A} versus {B}.',
    'Are the {A} and {B} agreements governed by the laws of the same state?',
  ],
  'Anti-Assignment': [
    'Could either party hand the {A} contract or the {B} contract over to someone else?',
    'Is consent needed to transfer the {A} and {B} agreements?',
    'Anti-assignment clauses of {A} and {B}, side by side.',
    'What do the {A} and {B} agreements say about assigning them?',
  ],
  'Cap On Liability': [
    'How much could we recover at most under the {A} deal and the {B} deal?',
    'Is there a ceiling on damages in the {A} and {B} contracts?',
    'Set the {A} liability limits beside those of {B}.',
    'What caps on liability do {A} and {B} agree to?',
  ],
  'Termination For Convenience': [
    'Can they drop us whenever they want under the {A} or the {B} contract?',
    'Which of {A} and {B} lets a party terminate on notice without a reason?',
    'Termination without cause: {A} compared with {B}.',
    'How much notice is needed to walk away from the {A} and {B} agreements?',
  ],
  'Renewal Term': [
    'Do the {A} and {B} contracts roll over on their own?',
    'How long is each renewal period under {A} and under {B}?',
    'Renewal: {A} versus {B}.',
    'Does the {A} deal or the {B} deal extend automatically after it ends?',
  ],
  Exclusivity: [
    'Are we the only one allowed to do this under {A} and under {B}?',
    'What exclusive rights do the {A} and {B} deals give?',
    'Exclusivity in {A} and in {B}, compared.',
    'Can the other side work with anyone else under the {A} or the {B} agreement?',
  ],
  'Non-Compete': [
    'Are we barred from competing under the {A} or the {B} agreement?',
    'What do the {A} and {B} contracts say about selling rival products?',
    'Non-competition covenants: {A} and {B}.',
    'Does {A} or {B} restrict a party from a competing business?',
  ],
  'Audit Rights': [
    'Can they check our records under {A} and under {B}?',
    'Which of the {A} and {B} deals lets a party inspect the books?',
    'Audit and inspection rights, {A} against {B}.',
    'How often may records be audited under the {A} and {B} contracts?',
  ],
  Insurance: [
    'What cover do we need to keep under {A} and {B}?',
    'Insurance obligations of the {A} contract and the {B} contract.',
    'Which of {A} and {B} requires liability insurance, and for how much?',
    'Set out the insurance the {A} and {B} agreements demand.',
  ],
  'License Grant': [
    'What can we use of theirs under the {A} and {B} deals?',
    'What intellectual property is licensed in {A} and in {B}?',
    'License grants: {A} and {B}.',
    'Is the license under {A} or under {B} exclusive, and what does it cover?',
  ],
};

/** "RevolutionMedicinesInc_2020…" → "Revolution Medicines"; "Zounds Hearing, Inc. - …" → "Zounds Hearing"; null for all-capitals names. */
function companyOf(pdf: string): string | null {
  const base = path.basename(pdf).replace(/\.pdf$/i, '');
  const head = base.includes('_') ? base.split('_')[0]! : base.split(/,| - /)[0]!;
  if (!/[a-z]/.test(head)) return null;
  const words = head
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .split(/\s+/)
    .filter((w) => !/^(inc|corp|corporation|co|ltd|llc|lp|plc|holdings|group)\.?$/i.test(w));
  return words.length ? words.join(' ') : null;
}

/** mulberry32: a small seeded generator, so the draw can be repeated. */
function seeded(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const frozen = readFileSync(path.join(here, 'data', 'comparison-questions.jsonl'), 'utf8')
  .split('\n')
  .filter(Boolean)
  .map((l) => JSON.parse(l) as { category: string; documents: { pdf: string }[] });
const frozenTargets = new Set(frozen.flatMap((r) => r.documents.map((d) => `${d.pdf}\n${r.category}`)));
const casePdfs = new Set(cuadClauses().map((q) => q.pdf));
const random = seeded(4040);
const out: string[] = [];
for (const [category, wordings] of Object.entries(WORDINGS)) {
  const lines = new Map<string, number[]>();
  spans.forEach((s, i) => {
    if (s.category !== category || !casePdfs.has(s.pdf) || !companyOf(s.pdf)) return;
    lines.set(s.pdf, [...(lines.get(s.pdf) ?? []), i]);
  });
  const pool = [...lines.keys()]
    .filter(
      (pdf) => lines.get(pdf)!.some((i) => spans[i]!.pdf_pages?.length) && !frozenTargets.has(`${pdf}\n${category}`),
    )
    .sort();
  for (const wording of wordings) {
    const a = pool.splice(Math.floor(random() * pool.length), 1)[0];
    const b = pool.splice(Math.floor(random() * pool.length), 1)[0];
    if (!a || !b) break;
    out.push(
      JSON.stringify({
        question: wording.replace('{A}', companyOf(a)!).replace('{B}', companyOf(b)!),
        category,
        documents: [a, b].map((pdf) => ({ pdf, lines: lines.get(pdf)! })),
      }),
    );
  }
}
writeFileSync(path.join(here, 'data', 'comparison-tune-questions.jsonl'), out.join('\n') + '\n');
console.log(`${out.length} questions`);
