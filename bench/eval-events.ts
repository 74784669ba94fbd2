/**
 * `npm run eval:events`: dated-event extraction (src/core/text/dates.ts) against hand-labelled
 * sentences of the real corpus, bench/data/events-labelled.jsonl: each line one sentence taken
 * verbatim (whitespace collapsed) from a document of ../shared/corpus — court opinions and filings
 * (freelaw-*), CUAD contracts, the DOCX files, legalbench-rag texts — with the events a paralegal
 * reads in it ([] for a sentence whose dates or date-like numbers are no event: citations, case
 * numbers, page headers and footers, form revisions, durations, money). Only the first event is
 * labelled: its date (YYYY-MM-DD, the 1st of the month or year for coarser precision), precision
 * and, for a range, its last date.
 *
 * Each sentence is extracted alone, as a one-page plain-text document (loadText) with no document
 * date, so a sentence whose year only its context gives cannot be found (the labels say so).
 * Reports extraction precision (sentences where an event was found that are labelled events /
 * sentences where one was found), recall (labelled event sentences where one was found / labelled
 * event sentences) and date accuracy (of those found and labelled, first date and precision both
 * right; date_end is listed, not scored), lists every miss, false hit and wrong date, and merges
 * `events.precision`, `events.recall`, `events.date_accuracy` into bench/results.json.
 * Targets (the issue): precision ≥ 0.9, recall ≥ 0.85, date accuracy ≥ 0.95.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { extractEvents, type DatedEvent } from '../src/core/text/dates';
import { loadText } from '../src/core/reader/loaders';
import { mergeResults, printTable, type Metrics } from './run';

const LABELS = path.join(import.meta.dirname, 'data', 'events-labelled.jsonl');

interface Labelled {
  source: string;
  text: string;
  events: { date: string; precision: 'day' | 'month' | 'year'; date_end?: string }[];
  note?: string;
}

export interface EventsResult {
  sentences: number;
  labelledEvents: number;
  precision: number;
  recall: number;
  dateAccuracy: number;
  misses: string[];
  falseHits: string[];
  wrongDates: string[];
}

const show = (e: DatedEvent) => `${e.date} ${e.precision}${e.date_end ? ` → ${e.date_end}` : ''} from “${e.date_text}”`;
const clip = (s: string, n = 160) => (s.length > n ? `${s.slice(0, n - 1)}…` : s);
const ratio = (a: number, b: number) => (b ? a / b : 0);

export function readLabels(file = LABELS): Labelled[] {
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as Labelled);
}

export async function evaluateEvents(labels = readLabels()): Promise<EventsResult> {
  let found = 0;
  let foundTrue = 0;
  let labelledEvents = 0;
  let dateRight = 0;
  const misses: string[] = [];
  const falseHits: string[] = [];
  const wrongDates: string[] = [];
  for (const l of labels) {
    const doc = loadText(Buffer.from(l.text));
    const events = await extractEvents(doc.text, doc.index, { docDate: '' });
    const truth = l.events[0];
    const got = events[0];
    const where = `[${path.basename(l.source)}] ${clip(l.text)}${l.note ? `  (${l.note})` : ''}`;
    if (truth) labelledEvents++;
    if (got) found++;
    if (got && !truth) falseHits.push(`${where}\n      found ${show(got)}`);
    if (!got && truth) misses.push(`${where}\n      labelled ${truth.date} ${truth.precision}`);
    if (got && truth) {
      foundTrue++;
      if (got.date === truth.date && got.precision === truth.precision) dateRight++;
      else
        wrongDates.push(
          `${where}\n      labelled ${truth.date} ${truth.precision}${truth.date_end ? ` → ${truth.date_end}` : ''}, found ${show(got)}`,
        );
    }
  }
  return {
    sentences: labels.length,
    labelledEvents,
    precision: ratio(foundTrue, found),
    recall: ratio(foundTrue, labelledEvents),
    dateAccuracy: ratio(dateRight, foundTrue),
    misses,
    falseHits,
    wrongDates,
  };
}

async function main(): Promise<void> {
  const r = await evaluateEvents();
  const list = (title: string, items: string[]) => {
    console.log(`\n${title} (${items.length}):`);
    for (const s of items) console.log(`  - ${s}`);
  };
  list('Misses: labelled an event, nothing found', r.misses);
  list('False hits: no event labelled, one found', r.falseHits);
  list('Wrong first date or precision', r.wrongDates);
  const n = `${r.sentences} sentences, ${r.labelledEvents} labelled with an event`;
  const metrics: Metrics = {
    'events.precision': {
      value: r.precision,
      unit: '',
      note: `sentences with an event found that are labelled events; ${n}; target ≥ 0.9`,
    },
    'events.recall': {
      value: r.recall,
      unit: '',
      note: `labelled event sentences where one was found; ${n}; target ≥ 0.85`,
    },
    'events.date_accuracy': {
      value: r.dateAccuracy,
      unit: '',
      note: `found and labelled: first date and precision right; ${n}; target ≥ 0.95`,
    },
  };
  console.log('');
  printTable(metrics);
  await mergeResults(metrics);
  console.log(`\nmerged into bench/results.json`);
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(import.meta.filename)) {
  await main();
}
