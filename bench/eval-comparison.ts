/**
 * `npm run eval:comparison -- --home DIR`: comparison questions over the CUAD case (issue 40):
 * "Compare the governing law of the Tom Online and Lifeway Foods agreements." Each of the 40
 * questions (bench/data/comparison-questions.jsonl, FROZEN) names two contracts of the case "eval
 * cuad-clauses" (as bench/eval-retrieval.ts ingests it) by their company and asks about one CUAD
 * category; its gold is every span of that category in each contract
 * (../shared/corpus/cuad/derived_clause_spans_selected.jsonl, by line).
 *
 * The set was generated once: ten categories, four question wordings each, pairs of contracts drawn
 * at random (seed 37) among those with a span of the category and a company name in their file
 * name. Nothing was tuned on it. `--set tune` runs bench/data/comparison-tune-questions.jsonl instead
 * (bench/make-comparison-tune.ts: other wordings, and never a contract the frozen set asks the
 * same category of), the set to tune on.
 *
 * Each question is asked with `chat.ask` mode 'extractive' (Find passages). A named contract is
 * covered when a citation of the answer is in it, overlaps a gold page and holds a gold span's words
 * (the rule of bench/gold.ts). Reported: every_document (questions whose named contracts are all
 * covered; target ≥ 0.85), documents (named contracts covered) and said_absent (named contracts
 * the answer says don't appear to say: every one holds the clause, so each is a false absence).
 * EVAL_VERBOSE=1 prints each.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { Engine } from '../src/core/engine';
import { holdsAnswer, readJsonl, wordsOf, type GoldAnswer } from './gold';
import { mergeResults, printTable, type Metrics } from './run';

const here = import.meta.dirname;
const corpus = path.resolve(here, '..', '..', 'shared', 'corpus');

/** sha256 of bench/data/comparison-questions.jsonl as frozen. Never tune on this set, never change this value. */
export const COMPARISON_QUESTIONS_SHA256 = '37cc006c3c4f1ee283f2dd56c8a15a58fbf1cd5f2bbc54b9e97a3d43a5f798dc';

interface Row {
  question: string;
  category: string;
  documents: { pdf: string; lines: number[] }[];
}

interface Span {
  pdf: string;
  clause_text: string;
  pdf_pages: number[] | null;
}

/** The cite ids of each part of a per-document answer that says its document doesn't appear to say. */
function absentSections(answer: string): string[][] {
  return answer
    .split(/\n\s*\n/)
    .filter((part) => /This document doesn['’]t appear to say/.test(part))
    .map((part) => [...part.matchAll(/\[cite:([^\]]+)\]/g)].map((m) => m[1]!));
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { home: { type: 'string' }, set: { type: 'string', default: 'frozen' } } });
  if (!values.home) throw new Error('--home DIR: a data home with the case "eval cuad-clauses" (see eval:retrieval)');
  if (values.set !== 'frozen' && values.set !== 'tune') throw new Error('--set frozen|tune');
  const tune = values.set === 'tune';
  const rows = tune
    ? readJsonl<Row>(path.join(here, 'data', 'comparison-tune-questions.jsonl'))
    : readJsonl<Row>(path.join(here, 'data', 'comparison-questions.jsonl'), COMPARISON_QUESTIONS_SHA256);
  const spans = readFileSync(path.join(corpus, 'cuad', 'derived_clause_spans_selected.jsonl'), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Span);
  const engine = await Engine.open({ home: path.resolve(values.home) });
  let every = 0;
  let covered = 0;
  let named = 0;
  let saidAbsent = 0;
  try {
    const kept = (await engine.router.call('cases.list', {})).cases.find((c) => c.name === 'eval cuad-clauses');
    if (!kept) throw new Error('no "eval cuad-clauses" case in this home: run eval:retrieval -- --sets cuad-clauses');
    const files = (await engine.router.call('files.list', { case_id: kept.id })).files;
    const pdfOfId = new Map(files.map((f) => [f.id, f.name]));
    for (const row of rows) {
      const a = await engine.router.call('chat.ask', { case_id: kept.id, question: row.question, mode: 'extractive' });
      // A span CUAD could not place on a page of the PDF cannot be checked: it is left out, and a
      // contract with none left is not scored.
      const scored = row.documents.filter((d) => d.lines.some((i) => spans[i]!.pdf_pages?.length));
      const hits = scored.map((d) => {
        const golds: GoldAnswer[] = d.lines
          .filter((i) => spans[i]!.pdf_pages?.length)
          .map((i) => ({
            file: path.basename(spans[i]!.pdf),
            pages: spans[i]!.pdf_pages!,
            words: wordsOf(spans[i]!.clause_text),
          }));
        return a.citations.some((c) => {
          const pages = c.span?.pages ?? c.pages ?? [];
          if (!c.span || !pages.length) return false;
          const r = {
            file: pdfOfId.get(c.file_id ?? '') ?? '',
            pages: [Math.min(...pages), Math.max(...pages)] as [number, number],
            text: c.span.text,
          };
          return golds.some((g) => holdsAnswer(r, g));
        });
      });
      // Every named contract holds the clause: a part of the answer saying one doesn't is wrong.
      const absentFiles = absentSections(a.answer).map((ids) =>
        pdfOfId.get(a.citations.find((c) => ids.includes(c.id))?.file_id ?? ''),
      );
      saidAbsent += scored.filter((d) => absentFiles.includes(path.basename(d.pdf))).length;
      named += hits.length;
      covered += hits.filter(Boolean).length;
      if (hits.every(Boolean)) every++;
      if (process.env.EVAL_VERBOSE) console.log(`  ${hits.map((h) => (h ? '✓' : '·')).join('')} ${row.question}`);
      // The answer and the gold beside a miss, on the tuning set only: the frozen set is never looked into.
      if (process.env.EVAL_VERBOSE && tune && !hits.every(Boolean)) {
        console.log(a.answer.replace(/^/gm, '      | '));
        for (const d of scored)
          for (const i of d.lines)
            console.log(`      gold p.${spans[i]!.pdf_pages}: ${spans[i]!.clause_text.slice(0, 160)}`);
      }
    }
  } finally {
    await engine.close();
  }
  const note = `${rows.length} ${tune ? 'tuning' : 'frozen'} comparison questions, each naming 2 of the 94 CUAD contracts; chat.ask extractive`;
  const key = tune ? 'comparison.tune' : 'comparison';
  const metrics: Metrics = {
    [`${key}.every_document`]: { value: Number((every / rows.length).toFixed(4)), unit: 'ratio', note },
    [`${key}.documents`]: { value: Number((covered / named).toFixed(4)), unit: 'ratio', note },
    [`${key}.said_absent`]: { value: Number((saidAbsent / named).toFixed(4)), unit: 'ratio', note },
  };
  await mergeResults(metrics);
  printTable(metrics);
}

await main();
