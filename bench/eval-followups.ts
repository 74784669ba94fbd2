/**
 * `npm run eval:followups -- --home DIR [--chains N] [--model ID]`: what a chat's memory of what it
 * found (issue 40, src/core/agent/recall.ts) does for follow-up questions. Over the case "eval
 * cuad-clauses" that `npm run eval:retrieval -- --sets cuad-clauses --home DIR` ingests (94 CUAD
 * contracts), each chain of bench/data/followup-chains.jsonl is asked as one chat: its first
 * question (from bench/data/cuad-clause-questions.jsonl, naming its contract), then two or one
 * follow-ups written as a user types them ("And until when does it run?"), each with its gold
 * clause span (`line` of ../shared/corpus/cuad/derived_clause_spans_selected.jsonl). Follow-ups are
 * marked `same` (the family of clause the chain spoke of) or `other` (another family).
 *
 * Run twice in one go, memory off (each follow-up searched as asked, as before) then on. A turn is
 * found when a citation of its answer holds the gold span on a gold page of the gold contract (the
 * rule of bench/gold.ts, as eval:extractive scores a quote). Reported per arm: searches per chain
 * (the answers' `searches`: searches of the documents each turn ran), recall over all turns, over
 * follow-ups, per relation, and how many follow-ups were answered from passages found earlier or
 * searched in the earlier question's contract. Without --model every question is asked with
 * "Find passages" (no chat model); with it, that model answers. EVAL_VERBOSE=1 prints each turn.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { Engine } from '../src/core/engine';
import type { ChatAnswer } from '../src/shared/contract/chat';
import { holdsClause, type ClauseQuestion } from './cuad-clauses';
import { readJsonl, wordsOf } from './gold';
import { mergeResults, printTable, type Metrics } from './run';

const here = import.meta.dirname;
const corpus = path.resolve(here, '..', '..', 'shared', 'corpus');
const CASE_NAME = 'eval cuad-clauses';

export interface ChainTurn {
  question: string;
  /** The gold clause span: its line in derived_clause_spans_selected.jsonl. */
  line: number;
  category: string;
  pages: number[];
  relation: 'first' | 'same' | 'other';
}

export interface Chain {
  chain: string;
  /** The contract's PDF (its file name in the case). */
  pdf: string;
  turns: ChainTurn[];
}

interface Span {
  pdf: string;
  clause_text: string;
  pdf_pages: number[] | null;
}

/** One turn's outcome. */
interface Scored {
  relation: ChainTurn['relation'];
  found: boolean;
  searches: number;
  earlier?: 'reused' | 'kept_focus';
}

/** The chains, each turn's gold checked against the spans file (same contract, a page to find it on). */
export function readChains(file: string, spans: Span[]): Chain[] {
  const chains = readJsonl<Chain>(file);
  for (const c of chains) {
    if (c.turns.length < 2 || c.turns.length > 3) throw new Error(`${c.chain}: a chain has two or three questions`);
    for (const t of c.turns) {
      const s = spans[t.line];
      if (!s || path.basename(s.pdf) !== c.pdf) throw new Error(`${c.chain}: line ${t.line} is not a span of ${c.pdf}`);
    }
  }
  return chains;
}

/** The gold of a turn, as the clause questions' (bench/cuad-clauses.ts). */
function goldOf(t: ChainTurn, spans: Span[]): ClauseQuestion {
  const s = spans[t.line]!;
  return { query: t.question, pdf: s.pdf, pages: s.pdf_pages ?? t.pages, words: wordsOf(s.clause_text) };
}

/** A cited span of the answer holds the gold clause on a gold page of the gold contract. */
export function answerHolds(r: ChatAnswer, gold: ClauseQuestion, nameOf: Map<string, string>): boolean {
  return r.citations.some((c) => {
    const name = nameOf.get(c.file_id ?? '') ?? '';
    const pages = c.span?.pages ?? c.pages ?? [];
    if (!c.span || !pages.length) return false;
    return holdsClause(
      {
        file: gold.pdf.endsWith(name) ? gold.pdf : name,
        pages: [Math.min(...pages), Math.max(...pages)],
        text: c.span.text,
      },
      gold,
    );
  });
}

/** Ask every chain as one chat of an engine opened with the memory on or off. */
async function runArm(
  home: string,
  memory: boolean,
  chains: Chain[],
  spans: Span[],
  model: string | undefined,
): Promise<Scored[][]> {
  const engine = await Engine.open({ home, agent: { sessionMemory: memory } });
  try {
    const kept = (await engine.router.call('cases.list', {})).cases.find((c) => c.name === CASE_NAME);
    if (!kept) throw new Error(`no "${CASE_NAME}" case in this home: run eval:retrieval -- --sets cuad-clauses first`);
    const files = (await engine.router.call('files.list', { case_id: kept.id })).files;
    const nameOf = new Map(files.map((f) => [f.id, f.name]));
    const out: Scored[][] = [];
    for (const chain of chains) {
      let session: string | undefined;
      const scored: Scored[] = [];
      for (const t of chain.turns) {
        const r = await engine.router.call('chat.ask', {
          case_id: kept.id,
          question: t.question,
          ...(model ? { model } : { mode: 'extractive' as const }),
          ...(session ? { session_id: session } : {}),
        });
        session = r.session_id;
        const found = answerHolds(r, goldOf(t, spans), nameOf);
        scored.push({
          relation: t.relation,
          found,
          searches: r.searches ?? 0,
          ...(r.earlier ? { earlier: r.earlier.kind } : {}),
        });
        if (process.env.EVAL_VERBOSE)
          console.log(
            `  ${memory ? 'on ' : 'off'} ${chain.chain} ${found ? '✓' : '·'} ${r.searches ?? '?'} ${r.earlier?.kind ?? '-'} ${t.question}`,
          );
      }
      out.push(scored);
    }
    return out;
  } finally {
    await engine.close();
  }
}

const ratio = (n: number, d: number) => Number((n / Math.max(1, d)).toFixed(4));

/** The arm's figures. */
export function summarize(arm: Scored[][]): Record<string, number> {
  const turns = arm.flat();
  const follow = turns.filter((t) => t.relation !== 'first');
  const of = (rel: ChainTurn['relation']) => turns.filter((t) => t.relation === rel);
  return {
    searches_per_chain: ratio(
      turns.reduce((n, t) => n + t.searches, 0),
      arm.length,
    ),
    recall: ratio(turns.filter((t) => t.found).length, turns.length),
    recall_followups: ratio(follow.filter((t) => t.found).length, follow.length),
    recall_same_family: ratio(of('same').filter((t) => t.found).length, of('same').length),
    recall_other_family: ratio(of('other').filter((t) => t.found).length, of('other').length),
    reused: follow.filter((t) => t.earlier === 'reused').length,
    kept_focus: follow.filter((t) => t.earlier === 'kept_focus').length,
  };
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: { home: { type: 'string' }, chains: { type: 'string' }, model: { type: 'string' } },
  });
  if (!values.home) throw new Error('--home DIR: a data home with the case "eval cuad-clauses" (see eval:retrieval)');
  const spans = readFileSync(path.join(corpus, 'cuad', 'derived_clause_spans_selected.jsonl'), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Span);
  const all = readChains(path.join(here, 'data', 'followup-chains.jsonl'), spans);
  const n = values.chains === undefined ? all.length : Number(values.chains);
  if (!Number.isInteger(n) || n < 1) throw new Error('--chains N: a whole number of chains, at least 1');
  const chains = all.slice(0, n);
  const home = path.resolve(values.home);
  const off = summarize(await runArm(home, false, chains, spans, values.model));
  const on = summarize(await runArm(home, true, chains, spans, values.model));
  const turns = chains.reduce((k, c) => k + c.turns.length, 0);
  const note = `${chains.length} follow-up chains (${turns} questions) over the 94 CUAD contracts; chat.ask ${values.model ? `with ${values.model}` : 'extractive'}`;
  const metrics: Metrics = {};
  for (const [arm, figures] of [
    ['off', off],
    ['on', on],
  ] as const)
    for (const [k, v] of Object.entries(figures))
      metrics[`followups.memory_${arm}.${k}`] = {
        value: v,
        unit: k.startsWith('recall') ? 'ratio' : k === 'searches_per_chain' ? 'searches' : 'turns',
        note,
      };
  await mergeResults(metrics);
  printTable(metrics);
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(import.meta.filename)) await main();
