/**
 * `npm run eval:cases`: which case a question asked outside any case means (`cases.detect`, over
 * the cases' digests alone). Ten cases are built in a fresh data home, each from a few documents:
 * three court opinions and four CUAD contracts of different parties from ../shared/corpus, and
 * three injury cases of our own making (bench/case-texts.ts). Each question of
 * bench/data/case-questions.jsonl names its case indirectly ("my slip-and-fall client", "the
 * CyberKnife distributor"); a few fit several cases on purpose (`expect: "ask"`).
 *
 * Reported per part (`tune`, which the ranking's settings were set on, and the frozen `held-out`):
 * right (the case chosen is the question's), asks (a choice offered where one case fits), wrong
 * (another case chosen: its answer would come from the wrong case), the ranking's top-1, and for the
 * questions meant to be asked, how often they were. Keyword only (`CASEFILE_BUNDLED_MODELS=off`).
 * `--verbose` prints every question not chosen right; `--home DIR` keeps the built cases there
 * (built once, then reused).
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { INJURY_CASES } from './case-texts';

process.env.CASEFILE_BUNDLED_MODELS ??= 'off';
const { Engine } = await import('../src/core/engine');

const here = import.meta.dirname;
const corpus = process.env.CORPUS_DIR ?? path.resolve(here, '..', '..', 'shared', 'corpus');
const opinions = path.join(corpus, 'freelaw-courtlistener/Documents/PDF to HTML Analysis and Testing');
const contracts = path.join(corpus, 'cuad/full_contract_txt');

/** Each case of the corpus: its name and its documents' paths. */
const CORPUS_CASES: Record<string, string[]> = {
  'Weintraub v. Quicken Loans': [path.join(opinions, '4thCircuit-082373.P.pdf')],
  'Gildernew v. Gantner': [path.join(opinions, '2ndCircuit-08-6301-cv_opn.pdf')],
  'Robinson v. Tyson Foods': [path.join(opinions, '11thCircuit-200814991.pdf')],
  'Adams Golf – Watson endorsement': [
    path.join(contracts, 'ADAMSGOLFINC_03_21_2005-EX-10.17-ENDORSEMENT AGREEMENT.txt'),
  ],
  'Accuray / Siemens distribution': [path.join(contracts, 'ACCURAYINC_09_01_2010-EX-10.31-DISTRIBUTOR AGREEMENT.txt')],
  'PivX reseller': [path.join(contracts, 'ADIANUTRITION,INC_04_01_2005-EX-10.D2-RESELLER AGREEMENT.txt')],
  'Airsopure franchise': [
    path.join(contracts, 'AIRTECHINTERNATIONALGROUPINC_05_08_2000-EX-10.4-FRANCHISE AGREEMENT.txt'),
  ],
};

interface Question {
  question: string;
  case: string | null;
  expect?: 'ask';
  part: 'tune' | 'held-out';
}

const args = process.argv.slice(2);
const verbose = args.includes('--verbose');
const homeArg = args.includes('--home') ? args[args.indexOf('--home') + 1] : undefined;
const home = homeArg ? path.resolve(homeArg) : mkdtempSync(path.join(os.tmpdir(), 'casefile-eval-cases-'));
const built = homeArg !== undefined && existsSync(path.join(home, 'cases'));

const engine = await Engine.open({ home, ingest: { concurrency: 1, ocr: false } });
const call = engine.router.call.bind(engine.router);
const t0 = performance.now();
if (!built) {
  for (const [name, files] of Object.entries(CORPUS_CASES)) {
    const { id } = await call('cases.create', { name });
    await call('ingest.start', { case_id: id, paths: files, searchable: true });
  }
  for (const [name, files] of Object.entries(INJURY_CASES)) {
    const drop = path.join(home, 'drop', name.replace(/[^\w]+/g, '-'));
    mkdirSync(drop, { recursive: true });
    for (const [file, text] of Object.entries(files)) writeFileSync(path.join(drop, file), text);
    const { id } = await call('cases.create', { name });
    await call('ingest.start', { case_id: id, paths: [drop], searchable: true });
  }
}
const buildMs = performance.now() - t0;
const { cases } = await call('cases.list', {});
const nameOf = new Map(cases.map((c) => [c.id, c.name]));
if (verbose) {
  for (const c of cases) {
    const d = await call('cases.detect', { question: c.name });
    console.log(`${c.name}: ${d.candidates.find((x) => x.case_id === c.id)?.line ?? ''}`);
  }
}

const questions = readFileSync(path.join(here, 'data/case-questions.jsonl'), 'utf8')
  .split('\n')
  .filter(Boolean)
  .map((l) => JSON.parse(l) as Question);

interface Tally {
  clear: number;
  right: number;
  asks: number;
  wrong: number;
  top1: number;
  meantAsk: number;
  asked: number;
}
const tallies: Record<string, Tally> = {};
const t1 = performance.now();
for (const q of questions) {
  const t = (tallies[q.part] ??= { clear: 0, right: 0, asks: 0, wrong: 0, top1: 0, meantAsk: 0, asked: 0 });
  const d = await call('cases.detect', { question: q.question });
  const chosen = d.chosen ? nameOf.get(d.chosen) : undefined;
  if (q.expect === 'ask') {
    t.meantAsk++;
    if (d.ambiguous) t.asked++;
    else if (verbose) console.log(`[${q.part}] meant to ask, chose ${chosen}: ${q.question}`);
    continue;
  }
  t.clear++;
  if (nameOf.get(d.candidates[0]?.case_id ?? '') === q.case) t.top1++;
  if (chosen === q.case) t.right++;
  else if (d.ambiguous) t.asks++;
  else t.wrong++;
  if (verbose && chosen !== q.case)
    console.log(
      `[${q.part}] ${q.case} ← ${q.question}\n    ${d.ambiguous ? 'asked' : `chose ${chosen}`}: ${d.candidates
        .map((c) => `${c.name} ${c.score} (${c.matched.join(' ')})`)
        .join(' | ')}`,
    );
}
const perQuestionMs = (performance.now() - t1) / questions.length;

const pct = (n: number, of: number) => (of ? `${((100 * n) / of).toFixed(1)} %` : '—');
console.log(`\n${cases.length} cases (built in ${(buildMs / 1000).toFixed(1)} s), ${questions.length} questions`);
console.log('part       clear  right          asks           wrong  top-1          meant-to-ask asked');
for (const [part, t] of Object.entries(tallies)) {
  console.log(
    `${part.padEnd(9)}  ${String(t.clear).padStart(5)}  ${pct(t.right, t.clear).padEnd(13)}  ${pct(t.asks, t.clear).padEnd(13)}  ${String(t.wrong).padStart(5)}  ${pct(t.top1, t.clear).padEnd(13)}  ${t.asked}/${t.meantAsk}`,
  );
}
console.log(`detection: ${perQuestionMs.toFixed(1)} ms a question (${os.cpus().length} cores)`);
await engine.close();
if (!homeArg) rmSync(home, { recursive: true, force: true });
