/**
 * `npm run eval:names`: the names documents get (src/core/text/profile.ts, the title and short
 * name; src/core/text/meta.ts, the type) against the hand labels of bench/data/document-names.jsonl
 * (court opinions and orders, CUAD contracts, Word templates, emails). Each file is read by the
 * real parse path in-process (`parseFile`, then `structureOf` as the reader does) and its title,
 * short name and type compared with the label.
 *
 * A title is right when, after normalising both (below), it equals the label or one of the label's
 * `accept` alternatives; for a name of the form "Title — Party / Party" the part before " — " is
 * what is compared when the whole is not. Normalising: Unicode NFKC, lower case, "&" read as "and", "vs"/"versus" read
 * as "v", punctuation removed, and the words "the", "inc", "incorporated", "co", "company",
 * "corp", "corporation", "llc", "ltd", "limited", "lp", "llp", "plc", "et", "al" dropped. A type is
 * right when it equals the label's. The short name is checked for opinions and orders only (the
 * label's `short_name`, else its title), by the same rule.
 * Two sets: bench/data/document-names.jsonl (the rules were written on it) and
 * bench/data/document-names-heldout.jsonl (frozen by its checksum: labelled blind by people who
 * never saw the app's names; never tuned on, its misses never printed). `--set tuning|heldout`
 * runs one; `--verbose` prints every miss of the tuning set; `--dump N` prints each file's first N
 * characters of text.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parseFile } from '../src/core/reader/parse';
import { structureOf } from '../src/core/text/structure';
import { mergeResults, printTable } from './run';

const here = import.meta.dirname;
const repo = path.resolve(here, '..');
const corpus = process.env.CORPUS_DIR ?? path.resolve(repo, '..', 'shared', 'corpus');

interface Label {
  file: string;
  title: string;
  type: string;
  short_name?: string;
  accept?: string[];
  /** The document gives itself no name (a test fixture, a bare table): its type is scored, not its title. */
  untitled?: boolean;
}

const DROPPED = new Set([
  'the',
  'inc',
  'incorporated',
  'co',
  'company',
  'corp',
  'corporation',
  'llc',
  'ltd',
  'limited',
  'lp',
  'llp',
  'plc',
  'et',
  'al',
]);
export const normName = (s: string): string =>
  s
    .normalize('NFKC')
    .toLowerCase()
    .replace(/&/g, ' and ')
    .replace(/[^\p{L}\p{N}\s]+/gu, ' ')
    .split(/\s+/)
    .map((w) => (w === 'vs' || w === 'versus' ? 'v' : w))
    .filter((w) => w && !DROPPED.has(w))
    .join(' ');

const same = (got: string, label: Label, primary = label.title): boolean => {
  const want = [primary, ...(label.accept ?? [])].map(normName);
  return want.includes(normName(got)) || want.includes(normName(got.split(' — ')[0]!));
};

export interface NamesResult {
  total: number;
  /** Documents whose title is scored (all but the untitled). */
  titled: number;
  title: number;
  type: number;
  short: { right: number; of: number };
  misses: string[];
}

/** The labelled sets: `tuning` (the rules were written on it) and `heldout` (frozen: totals only). */
const SETS = {
  tuning: 'document-names.jsonl',
  heldout: 'document-names-heldout.jsonl',
} as const;
type SetName = keyof typeof SETS;
/** sha256 of bench/data/document-names-heldout.jsonl as frozen. Never tune on this set, never change this value. */
const HELDOUT_SHA256 = '8a44f253c05c1d1af02492c5264ef0f8612b2312ddc445d12b2ba66f34f8a3ec';

export async function evaluateNames(set: SetName = 'tuning', dump = 0): Promise<NamesResult> {
  const raw = readFileSync(path.join(here, 'data', SETS[set]), 'utf8');
  if (set === 'heldout' && createHash('sha256').update(raw).digest('hex') !== HELDOUT_SHA256)
    throw new Error(`bench/data/${SETS[set]} is frozen and has changed: restore it, do not edit it`);
  const labels = raw
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as Label);
  const r: NamesResult = { total: labels.length, titled: 0, title: 0, type: 0, short: { right: 0, of: 0 }, misses: [] };
  for (const label of labels) {
    const file = label.file.startsWith('bench/') ? path.join(repo, label.file) : path.join(corpus, label.file);
    const bytes = new Uint8Array(readFileSync(file));
    const name = path.basename(label.file);
    const parsed = await parseFile({ bytes, name, maxBytes: 200 << 20 });
    if (!parsed.doc) throw new Error(`${label.file}: ${parsed.status} (${parsed.reason})`);
    if (dump) console.log(`=== ${label.file}\n${parsed.doc.text.slice(0, dump)}\n`);
    // The reader's call (worker.ts); older engines take fewer arguments and ignore the rest.
    const call = structureOf as (...args: unknown[]) => ReturnType<typeof structureOf>;
    const profile = call(
      parsed.doc.text,
      parsed.doc.index,
      name,
      parsed.doc.html,
      parsed.doc.email ? { subject: parsed.doc.email.subject } : undefined,
    ).profile as { title: string; short_name?: string };
    const type = parsed.docType;
    const short = profile.short_name ?? profile.title;
    const titleOk = same(profile.title, label);
    const typeOk = type === label.type;
    if (!label.untitled) r.titled++;
    if (titleOk && !label.untitled) r.title++;
    if (typeOk) r.type++;
    if (label.type === 'opinion' || label.type === 'order') {
      r.short.of++;
      if (same(short, label, label.short_name ?? label.title)) r.short.right++;
      else r.misses.push(`short  ${label.file.slice(-50)}: "${short}" (want "${label.short_name ?? label.title}")`);
    }
    if (!titleOk && !label.untitled)
      r.misses.push(`title  ${label.file.slice(-50)}: "${profile.title}" (want "${label.title}")`);
    if (!typeOk) r.misses.push(`type   ${label.file.slice(-50)}: ${type} (want ${label.type})`);
  }
  return r;
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(import.meta.filename)) {
  const dumpAt = process.argv.indexOf('--dump');
  const setAt = process.argv.indexOf('--set');
  const sets = (setAt > 0 ? [process.argv[setAt + 1]] : Object.keys(SETS)) as SetName[];
  if (!sets.every((s) => s in SETS)) throw new Error(`--set: one of ${Object.keys(SETS).join(', ')}`);
  const ratio = (n: number, of: number) => Number((n / Math.max(1, of)).toFixed(4));
  const metrics: Record<string, { value: number; unit: string; note: string }> = {};
  for (const set of sets) {
    const r = await evaluateNames(set, dumpAt > 0 ? Number(process.argv[dumpAt + 1]) || 1500 : 0);
    // A frozen set is read for its totals only: its misses are never listed, so nobody tunes on them.
    if (process.argv.includes('--verbose') && set === 'tuning') for (const m of r.misses) console.log(m);
    const note =
      set === 'tuning'
        ? `${r.total} hand-labelled documents (bench/data/document-names.jsonl): opinions and orders, CUAD contracts, DOCX templates, emails`
        : `${r.total} documents labelled blind (bench/data/document-names-heldout.jsonl, frozen): court papers, CUAD contracts, DOCX`;
    // The tuning set keeps the keys it always had; the frozen set's carry its name.
    const key = (m: string) => (set === 'tuning' ? `names.${m}` : `names.${set}.${m}`);
    metrics[key('title_accuracy')] = { value: ratio(r.title, r.titled), unit: 'ratio', note };
    metrics[key('type_accuracy')] = { value: ratio(r.type, r.total), unit: 'ratio', note };
    metrics[key('short_name_accuracy')] = {
      value: ratio(r.short.right, r.short.of),
      unit: 'ratio',
      note: `${r.short.of} opinions and orders of the same labels`,
    };
    console.log(
      `${set}: title ${r.title}/${r.titled}, type ${r.type}/${r.total}, short name ${r.short.right}/${r.short.of}`,
    );
  }
  if (!process.argv.includes('--no-save')) await mergeResults(metrics);
  printTable(metrics);
}
