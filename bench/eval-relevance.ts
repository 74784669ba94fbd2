/**
 * `npm run eval:relevance -- --home DIR --sets opinions,absent,absent-tune`: questions written by
 * someone who did not write the ranking, over documents the engine was not tuned on (issue 35).
 *
 *   - opinions (bench/data/opinion-questions.jsonl, FROZEN): questions a lawyer, paralegal or client
 *     asks about court opinions and orders of the corpus (holding and disposition, standard of
 *     review, parties and judges, dates, the statute at issue, key facts), naming the document by
 *     case name, loosely, or not at all. Gold: file, pages and an exact excerpt of that page's text.
 *     The OPINIONS PDFs below are ingested through the real `ingest.start` (one drop) into the case
 *     "eval opinions", reused when the home has it. Scored: the default search
 *     (`tools.search('hybrid', {query, top_k: 10})`) R@1, R@5, R@10, MRR, a result being a hit when
 *     it is in the gold file, overlaps a gold page and holds the answer (bench/gold.ts, the
 *     cuad-clauses rule); and the extractive answer (`chat.ask`, mode 'extractive'): its first
 *     quote holds the answer (first_quote, as bench/eval-extractive.ts scores it).
 *   - absent (bench/data/absent-questions.jsonl, FROZEN) and absent-tune
 *     (bench/data/absent-tune-questions.jsonl, NOT frozen: calibrate on this one only): questions
 *     a case like these could answer but does not (absent: true; checked with grep on the text),
 *     each beside an answerable one of the same kind (with gold as above), over two cases: the 94
 *     CUAD contracts ("eval cuad-clauses", as bench/eval-retrieval.ts ingests it: run
 *     `eval:retrieval -- --sets cuad-clauses --home DIR` first) and the opinions case. Each is asked
 *     with `chat.ask` mode 'extractive'. Reported: says_absent (share of absent questions whose
 *     answer says the documents don't say, in its first line; target ≥ 0.80), wrongly_absent (share
 *     of answerable ones that say so; target ≤ 0.05), first_quote (answerable ones whose first quote
 *     holds the answer).
 *
 * EVAL_VERBOSE=1 prints a line per question. Merges `relevance.<set>.…` into bench/results.json.
 */
import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { Engine } from '../src/core/engine';
import { openCaseTools } from '../src/core/tools/index';
import { installTestModels } from '../test/helpers/models';
import { cuadClauses } from './cuad-clauses';
import { firstLine, goldOf, holdsAnswer, readJsonl, saysAbsent, type GoldAnswer } from './gold';
import { mergeResults, printTable, type Metrics } from './run';

const here = import.meta.dirname;
const corpus = path.resolve(here, '..', '..', 'shared', 'corpus');
const data = (f: string) => path.join(here, 'data', f);

/** sha256 of bench/data/opinion-questions.jsonl as frozen. Never tune on this set, never change this value. */
export const OPINION_QUESTIONS_SHA256 = '8d7713ddab16fb95db87e0c0863c00ba7b04c5b9b19ed4d174537a836316b309';
/** sha256 of bench/data/absent-questions.jsonl as frozen. Never tune on this set, never change this value. */
export const ABSENT_QUESTIONS_SHA256 = 'b3ea9b391158b029bec53a74c28dd039b785ceae3db6a01ae86b810c525a14f2';

/** The court opinions and orders of the opinions case (relative to the corpus), all with a text layer. */
export const OPINIONS = [
  'freelaw-courtlistener/Documents/PDF to HTML Analysis and Testing/10thCircuit-06-6247.pdf',
  'freelaw-courtlistener/Documents/PDF to HTML Analysis and Testing/11thCircuit-200814991.pdf',
  'freelaw-courtlistener/Documents/PDF to HTML Analysis and Testing/2ndCircuit-08-6301-cv_opn.pdf',
  'freelaw-courtlistener/Documents/PDF to HTML Analysis and Testing/3rdCircuit-091225p.pdf',
  'freelaw-courtlistener/Documents/PDF to HTML Analysis and Testing/4thCircuit-082373.P.pdf',
  'freelaw-courtlistener/Documents/PDF to HTML Analysis and Testing/5thCircuit-07-30815-CR0.wpd.pdf',
  'freelaw-courtlistener/Documents/PDF to HTML Analysis and Testing/6thCircuit-10a0023p-06.pdf',
  'freelaw-courtlistener/Documents/PDF to HTML Analysis and Testing/7thCircuit-UZ1FFY4T.pdf',
  'freelaw-courtlistener/Documents/PDF to HTML Analysis and Testing/8thCircuit-071306U.pdf',
  'freelaw-courtlistener/Documents/PDF to HTML Analysis and Testing/9thCircuit-07-55393.pdf',
  'freelaw-courtlistener/Documents/PDF to HTML Analysis and Testing/DC-Circuit-07-3125-1229519.pdf',
  'freelaw-courtlistener/Documents/PDF to HTML Analysis and Testing/FederalCircuit-09-1361.pdf',
  'freelaw-courtlistener/cl/assets/media/test/search/opinion_tax.pdf',
  'freelaw-courtlistener/cl/corpus_importer/test_assets/tenn_test_files/1449/Diaz_v._Create_and_Construct__LLC_Appeals_Board_Opinion.pdf',
  'freelaw-courtlistener/cl/corpus_importer/test_assets/tenn_test_files/1450/Calderon_Fuentes_EHO.pdf',
  'freelaw-courtlistener/cl/recap/test_assets/gov.uscourts.ca8.17-2543.00803263743.0.pdf',
  'freelaw-courtlistener/cl/recap/test_assets/gov.uscourts.ca1.12-2209.00106475093.0.pdf',
  'freelaw-courtlistener/cl/recap/test_assets/acms_test.pdf',
  'freelaw-doctor/broken-mime.pdf',
  'freelaw-doctor/missouri.pdf',
  'freelaw-doctor/vector-pdf.pdf',
  'freelaw-doctor/recap_documents/ca1_00117684624.pdf',
  'freelaw-doctor/recap_documents/ca5_00516242060.pdf',
  'freelaw-doctor/recap_documents/ca10_010110462922.pdf',
  'freelaw-doctor/recap_extract/gov.uscourts.azd.1085839.3.0.pdf',
  'freelaw-doctor/recap_extract/gov.uscourts.cacd.652774.40.0.pdf',
];

const OPINIONS_CASE = 'eval opinions';
const CUAD_CASE = 'eval cuad-clauses';

interface GoldRow {
  question: string;
  file: string;
  pages: number[];
  answer: string;
}
interface AbsentRow extends Partial<GoldRow> {
  case: 'cuad' | 'opinions';
  question: string;
  absent: boolean;
}

/** A case of the home: its id and a map from a file's id and its name to its path relative to the corpus. */
interface EvalCase {
  id: string;
  pathOfName: Map<string, string>;
  pathOfId: Map<string, string>;
}

async function openCase(
  engine: Engine,
  name: string,
  paths: string[],
  ingestIfMissing: boolean,
  metrics: Metrics,
): Promise<EvalCase> {
  const pathOfName = new Map(paths.map((p) => [path.basename(p), p]));
  if (pathOfName.size !== paths.length) throw new Error(`${name}: two documents share a file name`);
  const kept = (await engine.router.call('cases.list', {})).cases.find((c) => c.name === name);
  if (!kept && !ingestIfMissing)
    throw new Error(`no "${name}" case in this home: run eval:retrieval -- --sets cuad-clauses --home DIR first`);
  const id = kept ? kept.id : (await engine.cases.create(name)).id;
  if (kept) {
    // A case kept from an earlier run is upgraded to the current chunking from its stored text, as the app does.
    const t0 = performance.now();
    const r = await engine.router.call('index.reindex', { case_id: id });
    console.log(
      `  ${name}: reusing the case in this home (${id})${r.versions ? `, re-indexed ${r.versions} documents in ${((performance.now() - t0) / 1000).toFixed(0)} s` : ''}`,
    );
  } else {
    const t0 = performance.now();
    const run = await engine.router.call('ingest.start', {
      case_id: id,
      paths: paths.map((p) => path.join(corpus, p)),
    });
    const seconds = (performance.now() - t0) / 1000;
    if (!('results' in run)) throw new Error('ingest did not finish');
    const bad = run.results.filter((r) => r.status !== 'indexed');
    console.log(
      `  ${name}: ingested ${paths.length} PDFs in ${seconds.toFixed(0)} s${bad.length ? `; not indexed: ${bad.map((b) => `${b.name} (${b.status})`).join(', ')}` : ''}`,
    );
    metrics['relevance.opinions.ingest_seconds'] = {
      value: Number(seconds.toFixed(1)),
      unit: 's',
      note: `${paths.length} opinion and order PDFs, one drop, embedding included`,
    };
  }
  const files = (await engine.router.call('files.list', { case_id: id })).files;
  const pathOfId = new Map(files.map((f) => [f.id, pathOfName.get(f.name) ?? f.name]));
  return { id, pathOfName, pathOfId };
}

/** The first citation of an extractive answer holds the gold answer. */
function firstQuoteHolds(
  c: EvalCase,
  citations: { file_id?: string; pages?: number[]; span?: { text: string; pages?: number[] } }[],
  g: GoldAnswer,
): boolean {
  const first = citations[0];
  if (!first?.span) return false;
  const pages = first.span.pages ?? first.pages ?? [];
  if (!pages.length) return false;
  return holdsAnswer(
    {
      file: c.pathOfId.get(first.file_id ?? '') ?? '',
      pages: [Math.min(...pages), Math.max(...pages)],
      text: first.span.text,
    },
    g,
  );
}

const verbose = Boolean(process.env.EVAL_VERBOSE);
const short = (s: string, n = 90) => (s.length > n ? `${s.slice(0, n - 1)}…` : s);

async function evalOpinions(engine: Engine, c: EvalCase): Promise<Record<string, number>> {
  const rows = readJsonl<GoldRow>(data('opinion-questions.jsonl'), OPINION_QUESTIONS_SHA256);
  const stray = rows.find((r) => !OPINIONS.includes(r.file));
  if (stray) throw new Error(`opinions: ${stray.file} is not in the opinions case`);
  const tools = await openCaseTools(engine, c.id);
  const s = { r1: 0, r5: 0, r10: 0, mrr: 0, first_quote: 0, says_absent: 0 };
  for (const row of rows) {
    const g = goldOf(row);
    const res = await tools.search('hybrid', { query: row.question, top_k: 10 });
    const hits = res.results.map((r) =>
      holdsAnswer({ file: c.pathOfName.get(r.file_name) ?? r.file_name, pages: r.pages, text: r.text }, g),
    );
    const first = hits.indexOf(true);
    if (first === 0) s.r1++;
    if (first >= 0 && first < 5) s.r5++;
    if (first >= 0) s.r10++;
    s.mrr += first >= 0 ? 1 / (first + 1) : 0;
    const a = await engine.router.call('chat.ask', { case_id: c.id, question: row.question, mode: 'extractive' });
    const quoted = firstQuoteHolds(c, a.citations, g);
    if (quoted) s.first_quote++;
    if (saysAbsent(a.answer)) s.says_absent++;
    if (verbose)
      console.log(
        `  ${first >= 0 ? `@${first + 1}` : '--'} ${quoted ? 'Q' : '-'} ${short(row.question)}  [${path.basename(row.file)} p${row.pages.join(',')}]`,
      );
  }
  const n = rows.length;
  return {
    'r@1': s.r1 / n,
    'r@5': s.r5 / n,
    'r@10': s.r10 / n,
    mrr: s.mrr / n,
    first_quote: s.first_quote / n,
    wrongly_absent: s.says_absent / n,
    n,
  };
}

async function evalAbsent(
  engine: Engine,
  cases: Record<'cuad' | 'opinions', EvalCase>,
  file: string,
  frozen?: string,
): Promise<Record<string, number>> {
  const rows = readJsonl<AbsentRow>(data(file), frozen);
  const out: Record<string, number> = {};
  const count = (key: string) => (out[key] = (out[key] ?? 0) + 1);
  for (const row of rows) {
    const c = cases[row.case];
    if (!row.absent && (!row.file || !row.pages || !row.answer))
      throw new Error(`${file}: an answerable question without gold: ${row.question}`);
    if (!row.absent && ![...c.pathOfName.values()].includes(row.file!))
      throw new Error(`${file}: ${row.file} is not in the ${row.case} case`);
    const a = await engine.router.call('chat.ask', { case_id: c.id, question: row.question, mode: 'extractive' });
    const says = saysAbsent(a.answer);
    const quoted = !row.absent && firstQuoteHolds(c, a.citations, goldOf(row as GoldRow));
    for (const scope of ['all', row.case]) {
      count(`${scope}.${row.absent ? 'absent' : 'answerable'}`);
      if (says) count(`${scope}.${row.absent ? 'says_absent' : 'wrongly_absent'}`);
      if (quoted) count(`${scope}.first_quote`);
    }
    if (verbose)
      console.log(
        `  ${row.absent ? 'ABSENT' : 'answer'} ${says ? 'says-absent' : '-----------'} ${row.absent ? ' ' : quoted ? 'Q' : '-'} [${row.case}] ${short(row.question)}  → ${short(firstLine(a.answer), 60)}`,
      );
  }
  const m: Record<string, number> = {};
  for (const scope of ['all', 'cuad', 'opinions']) {
    const absent = out[`${scope}.absent`] ?? 0;
    const answerable = out[`${scope}.answerable`] ?? 0;
    const pre = scope === 'all' ? '' : `${scope}.`;
    m[`${pre}says_absent`] = absent ? (out[`${scope}.says_absent`] ?? 0) / absent : NaN;
    m[`${pre}wrongly_absent`] = answerable ? (out[`${scope}.wrongly_absent`] ?? 0) / answerable : NaN;
    m[`${pre}first_quote`] = answerable ? (out[`${scope}.first_quote`] ?? 0) / answerable : NaN;
    m[`${pre}n_absent`] = absent;
    m[`${pre}n_answerable`] = answerable;
  }
  return m;
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { home: { type: 'string' }, sets: { type: 'string' } } });
  if (!values.home)
    throw new Error(
      '--home DIR: a data home (the CUAD case "eval cuad-clauses" comes from eval:retrieval -- --sets cuad-clauses --home DIR)',
    );
  const home = path.resolve(values.home);
  const wanted = (values.sets ?? 'opinions,absent').split(',');
  const known = ['opinions', 'absent', 'absent-tune'];
  const unknown = wanted.find((s) => !known.includes(s));
  if (unknown) throw new Error(`unknown set "${unknown}" (sets: ${known.join(', ')})`);
  mkdirSync(home, { recursive: true });
  if (!existsSync(path.join(home, 'models'))) await installTestModels(home);
  const metrics: Metrics = {};
  const table: string[][] = [];
  const put = (set: string, key: string, value: number, unit: string, note: string) => {
    if (!Number.isFinite(value)) return;
    metrics[`relevance.${set}.${key}`] = { value: Number(value.toFixed(4)), unit, note };
    table.push([set, key, unit === 'ratio' ? value.toFixed(3) : String(value)]);
  };
  const engine = await Engine.open({ home });
  try {
    const opinions = await openCase(engine, OPINIONS_CASE, OPINIONS, true, metrics);
    const needCuad = wanted.some((s) => s.startsWith('absent'));
    const cuadPaths = needCuad ? [...new Set(cuadClauses().map((q) => path.join('cuad', q.pdf)))].sort() : [];
    const cuad = needCuad ? await openCase(engine, CUAD_CASE, cuadPaths, false, metrics) : opinions;
    for (const set of wanted) {
      if (set === 'opinions') {
        const r = await evalOpinions(engine, opinions);
        const note = `${r.n} frozen questions over ${OPINIONS.length} court opinions and orders ingested as one case; default search (hybrid, top 10) and the extractive answer's first quote`;
        for (const k of ['r@1', 'r@5', 'r@10', 'mrr']) put('opinions', `default.${k}`, r[k]!, 'ratio', note);
        put('opinions', 'extractive.first_quote', r.first_quote!, 'ratio', note);
        put('opinions', 'extractive.wrongly_absent', r.wrongly_absent!, 'ratio', note);
        put('opinions', 'n', r.n!, 'questions', note);
      } else {
        const frozen = set === 'absent';
        const r = await evalAbsent(
          engine,
          { cuad, opinions },
          frozen ? 'absent-questions.jsonl' : 'absent-tune-questions.jsonl',
          frozen ? ABSENT_QUESTIONS_SHA256 : undefined,
        );
        const note = `${frozen ? 'frozen' : 'tuning'} set: ${r.n_absent} absent + ${r.n_answerable} answerable questions over the CUAD case (94 contracts) and the opinions case; chat.ask extractive`;
        for (const [k, v] of Object.entries(r)) put(set, k, v, k.includes('n_') ? 'questions' : 'ratio', note);
      }
      await mergeResults(metrics);
    }
  } finally {
    await engine.close();
  }
  console.log('\nset          metric                         value');
  for (const [set, key, value] of table) console.log(`${set!.padEnd(12)} ${key!.padEnd(30)} ${value}`);
  await mergeResults(metrics);
  console.log('\nmerged into bench/results.json:');
  printTable(metrics);
}

await main();
