/**
 * `npm run eval:extractive -- --home DIR`: how useful the extractive answer is — the answer a user
 * gets with no chat model, with "Find passages", or in place of a weak model's unusable answer. On
 * the cuad-clauses questions (the case `npm run eval:retrieval -- --sets cuad-clauses --home DIR`
 * ingested), each question is asked with `mode: 'extractive'`; a quote is a hit when it holds the
 * gold clause on its page of the gold contract (the retrieval eval's rule, on the quoted words
 * instead of the chunk). Reports hit@1 (the first quote), hit@any, the share of citations that
 * verify as quoted, the share that wrongly say the documents don't say, and the median time per answer. Writes bench/extractive-results.json.
 * `EVAL_VERBOSE=1` lists each question wrongly answered "the documents don't appear to say", with the answer's first line.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { Engine } from '../src/core/engine';
import { cuadClauses, holdsClause } from './cuad-clauses';
import { saysAbsent } from './gold';

const { values } = parseArgs({ options: { home: { type: 'string' }, 'max-queries': { type: 'string' } } });
if (!values.home) throw new Error('--home DIR: the data home where eval:retrieval ingested the cuad-clauses case');
const engine = await Engine.open({ home: path.resolve(values.home) });
const caseId = (await engine.cases.list()).find((c) => c.name === 'eval cuad-clauses')?.id;
if (!caseId)
  throw new Error(
    'no "eval cuad-clauses" case in this home: run eval:retrieval -- --sets cuad-clauses --home DIR first',
  );
const files = (await engine.router.call('files.list', { case_id: caseId })).files;
const pdfOf = new Map(files.map((f) => [f.id, f.name]));
const all = cuadClauses();
const max = Number(values['max-queries'] ?? all.length);
const questions = all.filter((_, i) => i % Math.max(1, Math.floor(all.length / max)) === 0).slice(0, max);

let first = 0;
let absent = 0;
let any = 0;
let quoted = 0;
let citations = 0;
const ms: number[] = [];
for (const q of questions) {
  const t0 = performance.now();
  const r = await engine.router.call('chat.ask', { case_id: caseId, question: q.query, mode: 'extractive' });
  ms.push(performance.now() - t0);
  const hits = r.citations.map((c) => {
    const name = pdfOf.get(c.file_id ?? '') ?? '';
    const pages = c.span?.pages ?? c.pages ?? [];
    return (
      Boolean(c.span) &&
      holdsClause(
        {
          file: q.pdf.endsWith(name) ? q.pdf : name,
          pages: [Math.min(...pages), Math.max(...pages)],
          text: c.span!.text,
        },
        q,
      )
    );
  });
  if (hits[0]) first++;
  // Every question here is answered by its contract: saying the documents don't is wrong.
  if (saysAbsent(r.answer)) {
    absent++;
    if (process.env.EVAL_VERBOSE) console.log(`  says absent: ${q.query}\n    → ${r.answer.split('\n')[0]}`);
  }
  if (hits.some(Boolean)) any++;
  citations += r.citations.length;
  quoted += r.citations.filter((c) => c.support === 'quoted').length;
}
await engine.close();
ms.sort((a, b) => a - b);
const result = {
  questions: questions.length,
  hit_at_1: +(first / questions.length).toFixed(3),
  hit_at_any: +(any / questions.length).toFixed(3),
  wrongly_absent: +(absent / questions.length).toFixed(3),
  quoted_share: +(quoted / Math.max(1, citations)).toFixed(3),
  passages_per_answer: +(citations / questions.length).toFixed(2),
  median_ms: Math.round(ms[ms.length >> 1]!),
};
console.log(JSON.stringify(result, null, 2));
writeFileSync(path.join(import.meta.dirname, 'extractive-results.json'), JSON.stringify(result, null, 2) + '\n');
