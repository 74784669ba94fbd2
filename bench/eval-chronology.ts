/**
 * `npm run eval:chronology`: the case chronology on whole documents (issue 37). Each document of
 * bench/data/chronology-docs (tuning.json and tuning-2.json; heldout.json to heldout-4.json, frozen:
 * never tuned on) is read by the real parse path in-process — `parseFile` (OCR for scans),
 * `structureOf`, then `extractEvents`
 * with the document's date and parties, as the reader does (src/core/reader/worker.ts) — so its
 * events are the rows the chronology shows. They are matched to the hand labels (every event a
 * litigator would put in a chronology; see bench/data/chronology-docs/README.md):
 *
 * - a row matches a label when its sentence contains the label's quote (whitespace collapsed, case
 *   ignored); each label takes one row and each row one label, rows with the label's date and
 *   precision first; its date is right when date and precision both equal the label's;
 * - a row matching an optional label (a filing stamp that dates a decision, a contract's term) is
 *   not counted either way; a row matching a label with no date (a relative phrase whose anchor
 *   the text does not give) is right only without a date;
 * - every other row is a false hit, classed by the rules of `junkKind` (caption or stamp, line
 *   numbers, signature block, form field, citation, or other).
 *
 * Reports per set: precision (matched rows / counted rows), recall (labels matched / labels), date
 * accuracy (matched rows with the right date / matched rows), junk rows per document (caption,
 * line numbers, signature, form field; citations apart), matched rows whose shown text still
 * carries a pleading's line numbers, and, when events carry a short `line`,
 * the share of lines of at most 160 characters. `EVAL_VERBOSE=1` (or --verbose) lists every miss,
 * false hit and wrong date of the tuning set (a frozen set's only as totals); --set NAME runs one
 * set; --no-save leaves bench/results.json. With several frozen sets, they are also reported as one.
 * Targets (the issue): precision ≥ 0.90, recall ≥ 0.80, no junk rows.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { parseFile } from '../src/core/reader/parse';
import { structureOf } from '../src/core/text/structure';
import { extractEvents, type DatedEvent } from '../src/core/text/dates';
import { mergeResults, printTable, type Metrics } from './run';

const here = import.meta.dirname;
const repo = path.resolve(here, '..');
const corpus = process.env.CORPUS_DIR ?? path.resolve(repo, '..', 'shared', 'corpus');
const DATA = path.join(here, 'data', 'chronology-docs');
export const SETS = ['tuning', 'tuning-2', 'heldout', 'heldout-2', 'heldout-3', 'heldout-4'] as const;
type SetName = (typeof SETS)[number];
/** The frozen sets (all but the tuning ones) and, where more than one ran, all of them as one. */
const frozen = (set: string) => !set.startsWith('tuning');
const POOLED = 'heldout-all';

export interface LabelEvent {
  /** YYYY-MM-DD (1st of the month or year for coarser precision); null: the text gives it no date. */
  date: string | null;
  precision?: 'day' | 'month' | 'year';
  /** A distinctive piece of the event's sentence, verbatim from the document's text. */
  quote: string;
  /** The event as a chronology line (for people reading the labels; not scored). */
  line: string;
  /** Neither required nor a false hit when found. */
  optional?: boolean;
}

export interface LabelDoc {
  id: string;
  /** Path under ../shared/corpus, or under the repository when it starts with bench/. */
  file: string;
  kind: string;
  /** A scan: read by OCR. */
  ocr?: boolean;
  events: LabelEvent[];
}

/** An extracted row, as far as the eval needs it: any later fields (a short `line`) are optional. */
export type Row = Pick<DatedEvent, 'date' | 'precision' | 'date_text' | 'start' | 'end' | 'text'> & { line?: string };

export const JUNK_KINDS = ['caption or stamp', 'line numbers', 'signature block', 'form field'] as const;
export type FalseKind = (typeof JUNK_KINDS)[number] | 'citation' | 'undated event given a date' | 'repeat' | 'other';

export interface DocResult {
  id: string;
  kind: string;
  rows: number;
  /** Rows that count for precision (all but those matching optional labels or undated labels right). */
  counted: number;
  labels: number;
  matched: { label: LabelEvent; row: Row; dateRight: boolean }[];
  misses: LabelEvent[];
  falseHits: { row: Row; kind: FalseKind }[];
  /** Rows with a short `line`: how many, and how many of at most 160 characters. */
  lines: { total: number; short: number };
  /** Matched rows whose shown text (`line`, else the sentence) carries a line-number column. */
  numbered: number;
  badQuotes: string[];
}

export const norm = (s: string): string => s.replace(/\s+/g, ' ').trim().toLowerCase();

/** The row's sentence as the eval reads it: its text and the document's text at its range. */
const rowTexts = (row: Row, text: string): string[] => [norm(row.text), norm(text.slice(row.start, row.end))];
const holds = (row: Row, text: string, quote: string) => rowTexts(row, text).some((t) => t.includes(norm(quote)));

/** Three standalone small numbers in a row, counting up: a pleading's line-number column read into the sentence. */
function hasLineNumbers(s: string): boolean {
  const nums = [...s.matchAll(/(?<![\w.,/:$-])\d{1,2}(?![\w.,/:%-])/g)].map((m) => Number(m[0]));
  for (let i = 0; i < nums.length; i++) {
    const after = nums.slice(i + 1);
    const next = after.indexOf(nums[i]! + 1);
    if (next >= 0 && after.slice(next + 1).includes(nums[i]! + 2)) return true;
  }
  return false;
}

/** Whether the row's date is a year closing a citation: "(2007)", "(Mo. banc 2010)", "(S.D.N.Y. Oct. 29, 2008)". */
function citationDate(row: Row): boolean {
  const s = row.text.replace(/\s+/g, ' ');
  const at = s.indexOf(row.date_text.replace(/\s+/g, ' '));
  if (at < 0) return false;
  const before = s.slice(Math.max(0, at - 120), at);
  const open = before.lastIndexOf('(');
  if (open < 0 || open < before.lastIndexOf(')')) return false;
  return /\d+\s+(?:[A-Z][A-Za-z.]*\s?)+(?:\d[a-z]{1,2}\s?)?\d+|\sv\.\s|\bWL\b|\bLEXIS\b|\bId\.|\bCir\.|\bU\.\s?S\./.test(
    before,
  );
}

/**
 * The kind of a false hit, by the first rule that holds: a caption or stamp (e-filing headers,
 * "Filed", "Date Filed", "Page n of m", EDGAR "Source:" footers, "Term, 2012", docket numbers),
 * line numbers (three counting numbers standing alone), a signature block ("/s/", "By:", "Name:",
 * "Title:", rules of underscores or dashes), a form field (two labels in a row with nothing between,
 * FORMTEXT and the like, a "Label: 20070817" value, a form's revision "CV-90 (10/08)"), a citation
 * (`citationDate`); else other.
 */
export function junkKind(row: Row): FalseKind {
  const s = row.text.replace(/\s+/g, ' ');
  if (
    /\b(?:Appellate\s+)?Case:?\s+[\w:.-]*\d[\w:.-]*,?\s+(?:Document|Doc|Page)\b|\bDate Filed\b|\bFiled:?\s+\d{1,2}\/\d{1,2}\/\d{2,4}|\bEntered\s+\d|\bDktEntry\b|\bPage ?ID\b|\bPage:?\s*\d+\s+of\s+\d+|(?:^|\s)Source:\s|\bFILED\b|\bTerm,?\s+\d{4}|\bDocket No\b/.test(
      s,
    )
  )
    return 'caption or stamp';
  if (hasLineNumbers(s)) return 'line numbers';
  if (/\/s\/|\bs\/\s?[A-Z]|\bBy:\s|_{4,}|-{6,}|\bDate\s+Date\b|\bName:|\bTitle:|IN WITNESS WHEREOF/.test(s))
    return 'signature block';
  if (
    /\b[A-Z][\w ]{0,30}:\s*[A-Z][\w ]{0,30}:|\bFORM(?:TEXT|DROPDOWN|CHECKBOX)\b|[☐☑☒]|\w:\s*(?:19|20)\d{6}\b|\b[A-Z]{1,4}-\d+\s*\(\d{1,2}\/\d{2}\)/.test(
      s,
    )
  )
    return 'form field';
  if (citationDate(row)) return 'citation';
  return 'other';
}

/** Matches one document's rows to its labels (the rule of the file's comment). */
export function matchDocument(doc: LabelDoc, rows: Row[], text: string): DocResult {
  const required = doc.events.filter((l) => !l.optional && l.date);
  const taken = new Set<Row>();
  const matched: DocResult['matched'] = [];
  const sameDate = (l: LabelEvent, r: Row) => r.date === l.date && r.precision === l.precision;
  for (const pass of [true, false])
    for (const l of required) {
      if (matched.some((m) => m.label === l)) continue;
      const row = rows.find((r) => !taken.has(r) && holds(r, text, l.quote) && (!pass || sameDate(l, r)));
      if (!row) continue;
      taken.add(row);
      matched.push({ label: l, row, dateRight: sameDate(l, row) });
    }
  const falseHits: DocResult['falseHits'] = [];
  let ignored = 0;
  for (const row of rows) {
    if (taken.has(row)) continue;
    const label = doc.events.find((l) => holds(row, text, l.quote));
    if (label?.optional) ignored++;
    else if (label && label.date === null && !row.date) ignored++;
    else if (label && label.date === null) falseHits.push({ row, kind: 'undated event given a date' });
    else if (label) falseHits.push({ row, kind: 'repeat' });
    else falseHits.push({ row, kind: junkKind(row) });
  }
  const withLine = rows.filter((r) => typeof r.line === 'string');
  const flat = norm(text);
  return {
    id: doc.id,
    kind: doc.kind,
    rows: rows.length,
    counted: rows.length - ignored,
    labels: required.length,
    matched,
    misses: required.filter((l) => !matched.some((m) => m.label === l)),
    falseHits,
    lines: { total: withLine.length, short: withLine.filter((r) => r.line!.length <= 160).length },
    numbered: matched.filter((m) => hasLineNumbers(m.row.line ?? m.row.text)).length,
    badQuotes: doc.events.filter((l) => !flat.includes(norm(l.quote))).map((l) => l.quote),
  };
}

export function readSet(name: SetName): LabelDoc[] {
  return (JSON.parse(readFileSync(path.join(DATA, `${name}.json`), 'utf8')) as { documents: LabelDoc[] }).documents;
}

/** A document read as the reader reads it, and its events as ingest stores them. */
export async function readDocument(doc: LabelDoc): Promise<{ text: string; rows: Row[] }> {
  const file = doc.file.startsWith('bench/') ? path.join(repo, doc.file) : path.join(corpus, doc.file);
  const name = path.basename(doc.file);
  const engine = doc.ocr ? new (await import('../src/core/ocr/tesseract')).OcrEngine({ lang: 'eng' }) : undefined;
  try {
    const parsed = await parseFile({
      bytes: new Uint8Array(readFileSync(file)),
      name,
      maxBytes: 200 << 20,
      ...(engine ? { ocr: { engine } } : {}),
    });
    if (!parsed.doc) throw new Error(`${doc.file}: ${parsed.status} (${parsed.reason})`);
    const { text, index, html, email } = parsed.doc;
    const structure = structureOf(text, index, name, html, { subject: email?.subject });
    const rows = await extractEvents(text, index, {
      docDate: parsed.docDate,
      dayFirst: false,
      parties: structure.profile.parties,
    });
    return { text, rows };
  } finally {
    await engine?.dispose();
  }
}

export interface SetResult {
  set: SetName | typeof POOLED;
  docs: DocResult[];
  labels: number;
  rows: number;
  counted: number;
  matched: number;
  dateRight: number;
  precision: number;
  recall: number;
  /** Recall of each document with labels, averaged: a long docket table weighs as one document. */
  docRecall: number;
  dateAccuracy: number;
  junk: Record<(typeof JUNK_KINDS)[number], number>;
  junkPerDoc: number;
  citations: number;
  lines: { total: number; short: number };
  numbered: number;
}

const ratio = (a: number, b: number) => (b ? a / b : 0);
const sum = (docs: DocResult[], f: (d: DocResult) => number) => docs.reduce((n, d) => n + f(d), 0);

export function summarise(set: SetResult['set'], docs: DocResult[]): SetResult {
  const matched = sum(docs, (d) => d.matched.length);
  const dateRight = sum(docs, (d) => d.matched.filter((m) => m.dateRight).length);
  const counted = sum(docs, (d) => d.counted);
  const labels = sum(docs, (d) => d.labels);
  const labelled = docs.filter((d) => d.labels > 0);
  const junk = Object.fromEntries(
    JUNK_KINDS.map((k) => [k, sum(docs, (d) => d.falseHits.filter((f) => f.kind === k).length)]),
  ) as SetResult['junk'];
  return {
    set,
    docs,
    labels,
    rows: sum(docs, (d) => d.rows),
    counted,
    matched,
    dateRight,
    precision: ratio(matched, counted),
    recall: ratio(matched, labels),
    docRecall: ratio(
      sum(labelled, (d) => d.matched.length / d.labels),
      labelled.length,
    ),
    dateAccuracy: ratio(dateRight, matched),
    junk,
    junkPerDoc: ratio(
      Object.values(junk).reduce((a, b) => a + b, 0),
      docs.length,
    ),
    citations: sum(docs, (d) => d.falseHits.filter((f) => f.kind === 'citation').length),
    lines: { total: sum(docs, (d) => d.lines.total), short: sum(docs, (d) => d.lines.short) },
    numbered: sum(docs, (d) => d.numbered),
  };
}

export async function evaluateChronology(sets: readonly SetName[] = SETS): Promise<SetResult[]> {
  const out: SetResult[] = [];
  for (const set of sets) {
    const docs: DocResult[] = [];
    for (const doc of readSet(set)) {
      const { text, rows } = await readDocument(doc);
      docs.push(matchDocument(doc, rows, text));
    }
    out.push(summarise(set, docs));
  }
  return out;
}

const clip = (s: string, n = 140) => {
  const t = s.replace(/\s+/g, ' ').trim();
  return t.length > n ? `${t.slice(0, n - 1)}…` : t;
};
const showRow = (r: Row) => `${r.date || '(no date)'} ${r.precision} “${r.date_text}”: ${clip(r.text)}`;

function printSet(r: SetResult, verbose: boolean): void {
  console.log(`\n== ${r.set}${frozen(r.set) ? ' (frozen)' : ''}: ${r.docs.length} documents`);
  console.log('doc  kind      labels rows matched date-right false junk');
  for (const d of r.docs) {
    const junk = d.falseHits.filter((f) => (JUNK_KINDS as readonly string[]).includes(f.kind)).length;
    const right = d.matched.filter((m) => m.dateRight).length;
    console.log(
      `${d.id.padEnd(4)} ${d.kind.padEnd(9)} ${String(d.labels).padStart(6)} ${String(d.rows).padStart(4)} ${String(d.matched.length).padStart(7)} ${String(right).padStart(10)} ${String(d.falseHits.length).padStart(5)} ${String(junk).padStart(4)}`,
    );
    for (const q of d.badQuotes) console.log(`     ! label quote not in the document's text: “${q}”`);
  }
  console.log(
    `precision ${r.precision.toFixed(3)} (${r.matched}/${r.counted}), recall ${r.recall.toFixed(3)} (${r.matched}/${r.labels}; per document ${r.docRecall.toFixed(3)}), date accuracy ${r.dateAccuracy.toFixed(3)} (${r.dateRight}/${r.matched})`,
  );
  console.log(
    `junk rows per document ${r.junkPerDoc.toFixed(2)}: ${JUNK_KINDS.map((k) => `${k} ${r.junk[k]}`).join(', ')}; citation dates ${r.citations}`,
  );
  console.log(`matched rows showing line numbers: ${r.numbered}/${r.matched}`);
  if (r.lines.total) console.log(`event lines ≤ 160 characters: ${r.lines.short}/${r.lines.total}`);
  // A frozen set is read for its totals only: its misses are never listed, so nobody tunes on them.
  if (!verbose || frozen(r.set)) return;
  for (const d of r.docs) {
    const wrong = d.matched.filter((m) => !m.dateRight);
    if (!d.misses.length && !d.falseHits.length && !wrong.length) continue;
    console.log(`\n  [${d.id}]`);
    for (const l of d.misses) console.log(`    miss       ${l.date} ${l.precision} “${l.quote}” — ${l.line}`);
    for (const m of wrong)
      console.log(`    wrong date labelled ${m.label.date} ${m.label.precision}, found ${showRow(m.row)}`);
    for (const f of d.falseHits) console.log(`    false hit  [${f.kind}] ${showRow(f.row)}`);
  }
}

function metricsOf(r: SetResult): Metrics {
  const file = r.set === POOLED ? 'every held-out set' : `bench/data/chronology-docs/${r.set}.json`;
  const n = `${r.docs.length} whole documents, ${r.labels} labelled events (${file}${frozen(r.set) ? ', frozen' : ''})`;
  const m: Metrics = {
    [`chronology.${r.set}.precision`]: {
      value: r.precision,
      unit: 'ratio',
      note: `rows matching a labelled event / rows; ${n}; target ≥ 0.90`,
    },
    [`chronology.${r.set}.recall`]: {
      value: r.recall,
      unit: 'ratio',
      note: `labelled events found / labelled events; ${n}; target ≥ 0.80`,
    },
    [`chronology.${r.set}.recall_per_doc`]: {
      value: r.docRecall,
      unit: 'ratio',
      note: `recall of each document with labels, averaged; ${n}`,
    },
    [`chronology.${r.set}.date_accuracy`]: {
      value: r.dateAccuracy,
      unit: 'ratio',
      note: `found events with the labelled date and precision / found events; ${n}`,
    },
    [`chronology.${r.set}.junk_rows_per_doc`]: {
      value: r.junkPerDoc,
      unit: 'rows',
      note: `rows from captions or stamps, line numbers, signature blocks, form fields, per document; ${n}; target 0`,
    },
  };
  m[`chronology.${r.set}.numbered_rows`] = {
    value: r.numbered,
    unit: 'rows',
    note: `found events whose shown text carries a pleading's line numbers; ${n}; target 0`,
  };
  if (r.lines.total)
    m[`chronology.${r.set}.short_lines`] = {
      value: ratio(r.lines.short, r.lines.total),
      unit: 'ratio',
      note: `event lines of at most 160 characters / rows with a line; ${n}`,
    };
  return m;
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(import.meta.filename)) {
  const { values } = parseArgs({
    options: { set: { type: 'string' }, verbose: { type: 'boolean' }, 'no-save': { type: 'boolean' } },
  });
  const sets = values.set ? [values.set as SetName] : SETS;
  if (!sets.every((s) => (SETS as readonly string[]).includes(s))) throw new Error(`--set: one of ${SETS.join(', ')}`);
  const verbose = values.verbose || process.env.EVAL_VERBOSE === '1';
  const results = await evaluateChronology(sets);
  const held = results.filter((r) => frozen(r.set));
  if (held.length > 1)
    results.push(
      summarise(
        POOLED,
        held.flatMap((r) => r.docs),
      ),
    );
  const metrics: Metrics = {};
  for (const r of results) {
    printSet(r, verbose);
    Object.assign(metrics, metricsOf(r));
  }
  console.log('');
  printTable(metrics);
  if (!values['no-save']) {
    await mergeResults(metrics);
    console.log('\nmerged into bench/results.json');
  }
}
