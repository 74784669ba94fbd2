/**
 * The agent's steps in plain words, for people who are not engineers ("Listed the 14 documents",
 * "Read section 5 Termination"), shared by the app's timeline and the CLI. Pure TS. The words come
 * from the step's action, input, summary and the head line of its observation, which the tools write
 * in a fixed form (src/core/agent/agent-tools.ts); a step still running reads in the present.
 */
import type { AgentStep } from './contract/chat';
import { plural } from './format';

/** "2.4 s" (one decimal; "0.0 s" for nothing). */
export function formatSeconds(ms: number): string {
  const s = Math.max(0, ms) / 1000;
  return `${s.toFixed(1)} s`;
}

/** The time a step took (model and tool together), "2.4 s". */
export function stepSeconds(step: Pick<AgentStep, 'timing'>): string {
  return formatSeconds((step.timing?.model_ms ?? 0) + (step.timing?.tool_ms ?? 0));
}

function str(v: unknown): string {
  return typeof v === 'string' ? v.replace(/\s+/g, ' ').trim() : '';
}

/** ‘words’, shortened past 80 characters. */
function quoted(text: string, max = 80): string {
  const t = text.length > max ? `${text.slice(0, max - 1).trimEnd()}…` : text;
  return `‘${t}’`;
}

/** "a, b and c". */
function listed(names: string[]): string {
  if (names.length <= 1) return names[0] ?? '';
  if (names.length > 3) return `${names.slice(0, 2).join(', ')} and ${names.length - 2} more`;
  return `${names.slice(0, -1).join(', ')} and ${names.at(-1)}`;
}

/** The step has run (its observation is in) or is still running. */
function isDone(step: AgentStep): boolean {
  return step.kind === 'final' || Boolean(step.observation) || Boolean(step.summary) || Boolean(step.error);
}

/** The earlier step whose result a repeated call reused, or null when this is not a repeat. */
export function repeatOf(step: Pick<AgentStep, 'policy' | 'observation'>): number | null {
  const m =
    /repeated call: answered from step (\d+)/i.exec(step.policy ?? '') ??
    /a call it had already made, so it was stopped \(step (\d+)\)/i.exec(step.policy ?? '') ??
    /^You already made this exact call in step (\d+)/m.exec(step.observation ?? '');
  return m ? Number(m[1]) : null;
}

/** Which documents a search looked in: the filter the call gave, else the documents the search focused on. */
function searchScope(step: AgentStep): string {
  const name = str(step.input.file_name);
  if (name) return ` in ${name}`;
  const contains = str(step.input.file_name_contains);
  if (contains) return ` in documents named ${quoted(contains, 40)}`;
  const type = str(step.input.doc_type);
  const focused = /Focused on (.+?) \(the question names/.exec(step.observation ?? '')?.[1];
  if (focused) return ` in ${listed(focused.split(', '))}`;
  return type ? ` in the ${type} documents` : '';
}

/** " — 5 passages, best strong" (nothing while running). */
function searchResult(step: AgentStep, unit: string, units = `${unit}s`): string {
  if (!step.summary) return '';
  const best = step.summary.best_label && step.summary.count > 0 ? `, best ${step.summary.best_label}` : '';
  return ` — ${plural(step.summary.count, unit, units)}${best}`;
}

/** The file a read or grep step looked at, from its observation's head ("name v2, characters …"). */
function fileOf(step: AgentStep, after: RegExp): string {
  for (const line of (step.observation ?? '').split('\n')) {
    const m = after.exec(line);
    if (m?.[1]) return m[1];
  }
  return '';
}

const SEARCH_KIND: Record<string, string> = {
  retrieve: '',
  keyword_search: ' (exact words)',
  vector_search: ' (by meaning)',
};

type Describer = (step: AgentStep, done: boolean) => string;

const DESCRIBE: Record<string, Describer> = {
  findFiles: (step, done) => {
    const filter = str(step.input.file_name) || str(step.input.file_name_contains);
    if (!done) return filter ? `Listing the documents named ${quoted(filter, 40)}…` : 'Listing the documents…';
    const n = step.summary?.count;
    if (n === undefined) return 'Listed the documents';
    const docs = plural(n, 'document');
    return filter
      ? `Listed the ${docs} named ${quoted(filter, 40)}`
      : n === 1
        ? 'Listed the one document'
        : `Listed the ${docs}`;
  },
  retrieve: (step, done) => describeSearch(step, done),
  keyword_search: (step, done) => describeSearch(step, done),
  vector_search: (step, done) => describeSearch(step, done),
  grepCase: (step, done) => {
    const pattern = quoted(str(step.input.pattern));
    const contains = str(step.input.file_name_contains);
    const where = contains ? `the documents named ${quoted(contains, 40)}` : 'every document';
    if (!done) return `Searching ${where} for ${pattern}…`;
    return `Searched ${where} for ${pattern}${searchResult(step, 'match', 'matches')}`;
  },
  timeline: (step, done) => {
    const from = str(step.input.from);
    const to = str(step.input.to);
    const about = str(step.input.query) || str(step.input.person);
    const when = from && to ? ` from ${from} to ${to}` : from ? ` from ${from}` : to ? ` until ${to}` : '';
    const what = `the case's dated events${about ? ` about ${quoted(about, 40)}` : ''}${when}`;
    if (!done) return `Listing ${what}…`;
    return `Listed ${what}${searchResult(step, 'event')}`;
  },
  grepFile: (step, done) => {
    const pattern = quoted(str(step.input.pattern));
    const file = fileOf(step, /^\d+ match(?:es)? in (.+?)(?: \(first \d+ shown\))?\.$/);
    if (!done) return `Searching one document for ${pattern}…`;
    return `Searched ${file || 'one document'} for ${pattern}${searchResult(step, 'match', 'matches')}`;
  },
  readSection: (step, done) => {
    const section = str(step.input.section);
    if (!done) return /^s\d+$/.test(section) || !section ? 'Reading a section…' : `Reading section ${section}…`;
    for (const line of (step.observation ?? '').split('\n')) {
      const m = /^(.+?) v\d+ § (.*?) \((?:pp?\.[^)]*)?\)/.exec(line);
      if (m) return `Read section ${m[2] || section} of ${m[1]}`;
    }
    return /^s\d+$/.test(section) || !section ? 'Read a section' : `Read section ${section}`;
  },
  readFile: (step, done) => {
    if (!done) return 'Reading part of a document…';
    for (const line of (step.observation ?? '').split('\n')) {
      const m = /^(.+?) v\d+, characters \d+-\d+ of \d+ \((pp?\.[\d-]+)?/.exec(line);
      if (m)
        return `Read part of ${m[1]}${m[2] ? ` (${m[2].replace(/^pp?\./, (p) => `${p} `).replace('-', '–')})` : ''}`;
    }
    return 'Read part of a document';
  },
  outline: (step, done) => {
    if (!done) return 'Looking at the outline of a document…';
    const m = /^(.+?) v\d+: \d+ sections?/m.exec(step.observation ?? '');
    return `Looked at the outline of ${m?.[1] ?? 'a document'}${step.summary ? ` — ${plural(step.summary.count, 'section')}` : ''}`;
  },
  getAdjacentChunks: (step, done) =>
    done
      ? `Read the passages around a search result${searchResult(step, 'passage')}`
      : 'Reading the passages around a search result…',
  find_passages: (step, done) => {
    const q = str(step.input.query);
    const about = q ? ` for ${quoted(q)}` : '';
    const docs = Array.isArray(step.input.documents) ? step.input.documents.map(str).filter(Boolean) : [];
    const where = docs.length ? ` in ${listed(docs)}` : '';
    if (!done) return `Finding the best passages${about}${where}…`;
    return `Found the best passages${about}${where}${searchResult(step, 'passage')}`;
  },
  // A follow-up answered from what the chat found before (src/core/agent/recall.ts): no search.
  earlier_passages: (step, done) => {
    if (!done) return 'Looking at the passages found earlier…';
    const n = step.summary?.count ?? 0;
    return `Used ${plural(n, 'passage')} found earlier`;
  },
};

function describeSearch(step: AgentStep, done: boolean): string {
  const q = quoted(str(step.input.query));
  const kind = SEARCH_KIND[step.action] ?? '';
  if (!done) return `Searching ${q}${kind}${searchScope(step)}…`;
  return `Searched ${q}${kind}${searchScope(step)}${searchResult(step, 'passage')}`;
}

/** One step in plain words. */
export function describeStep(step: AgentStep): string {
  if (step.kind === 'final') {
    // The closing step of a turn the loop stopped (src/core/agent/policies.ts) answered nothing.
    const prior = repeatOf(step);
    if (prior !== null) return `Stopped: the model asked again for the call of step ${prior}`;
    if (/failed the step format twice/i.test(step.policy ?? ''))
      return 'Stopped: the model’s replies did not follow the step format';
    return 'Answered';
  }
  const done = isDone(step);
  if (step.action === 'final_answer') return 'Wrote an answer too early: it was sent back';
  const describe = DESCRIBE[step.action];
  if (!describe) {
    if (/no tool named/.test(step.observation ?? '')) return `Tried a tool that does not exist (${step.action})`;
    return done ? `Used ${step.action}` : `Using ${step.action}…`;
  }
  let text = describe(step, done);
  if (step.error) text += ' — failed';
  const prior = repeatOf(step);
  if (prior !== null) text += ` — the same call as step ${prior}, not run again`;
  return text;
}

/** Known policy notes (src/core/agent) in plain words. */
const POLICY_WORDS: [RegExp, string | ((m: RegExpExecArray) => string)][] = [
  [/findFiles first: ran findFiles instead of \w+/i, 'The documents are listed before anything else'],
  [/findFiles first: the inventory is taken before answering/i, 'The documents are listed before an answer is given'],
  [
    /exhaustive question: grepCase required before answering/i,
    'The question asks for every occurrence, so every document is searched before answering',
  ],
  [
    /clause question: the whole section of the best passage is read before answering/i,
    'The whole clause is read before answering',
  ],
  [
    /a question about the documents is searched before it is answered[^;]*/i,
    'The documents are searched before an answer is given',
  ],
  [
    /step budget of (\d+) reached: answer forced from what was found/i,
    (m) => `The limit of ${m[1]} steps was reached: the answer uses what was found so far`,
  ],
  [
    /step budget of (\d+) reached and the model asked for [^;]*; no answer was produced/i,
    (m) => `The limit of ${m[1]} steps was reached before an answer was found`,
  ],
  [
    /repeated call: answered from step (\d+) without running the tool again/i,
    (m) => `The same call as step ${m[1]}: its result was reused`,
  ],
  [
    /the model asked again for a call it had already made, so it was stopped \(step (\d+)\)/i,
    (m) => `The model asked again for the call of step ${m[1]}, so it was stopped; the passages found first stay`,
  ],
  [
    /the model failed the step format twice, so it was stopped/i,
    'The model’s replies twice failed to follow the step format, so it was stopped; the passages found first stay',
  ],
  [
    /the query “([^”]*)” shares no word with the question or what was found: searched the question instead/i,
    (m) => `The search “${m[1]}” had nothing to do with the question, so the question itself was searched`,
  ],
  [
    /you stopped the model before it finished/i,
    'You stopped the model before it finished; the passages found first stay',
  ],
  [
    /the reply was cut off; the part of the answer that was written is kept/i,
    'The model’s reply was cut off; the part it wrote is kept',
  ],
  [
    /the reply could not be parsed after one repair; its text is taken as the answer/i,
    'The model’s reply could not be read; its text is taken as the answer',
  ],
  [
    /the model started repeating itself: generation was stopped/i,
    'The model started repeating itself, so it was stopped',
  ],
  [
    /Find passages: the best passages, quoted, without a model/i,
    'Find passages: the best passages are quoted, without a model',
  ],
  [
    /no chat model is installed: the best passages, quoted/i,
    'No chat model is installed: the best passages are quoted instead',
  ],
  [
    /the installed chat model is too small to answer: the best passages, quoted/i,
    'The installed chat model is too small to write answers worth waiting for: the best passages are quoted instead',
  ],
  [
    /follow-up: used (\d+ passages?) found earlier in this chat for “([^”]*)”; not searched again/i,
    (m) =>
      `A follow-up: ${m[1]} found earlier in this chat, for “${m[2]}”, answer it, so the documents were not searched again`,
  ],
  [
    /follow-up names no document: searched again in (.+?), which “([^”]*)” was about \(([^)]*)\)/i,
    (m) => `The follow-up names no document, so it was searched in ${m[1]}, which “${m[2]}” was about (${m[3]})`,
  ],
  [
    /the model's answer was replaced by the best passages: (.+)$/i,
    (m) => `The model’s answer was replaced by the best passages: ${m[1]}`,
  ],
];

/** A step's policy note in plain words (several notes joined with "; " each read); null without one. */
export function describePolicy(policy: string | undefined): string | null {
  let rest = (policy ?? '').trim();
  if (!rest) return null;
  const found: { at: number; text: string }[] = [];
  for (const [re, words] of POLICY_WORDS) {
    const m = re.exec(rest);
    if (!m) continue;
    found.push({ at: m.index, text: typeof words === 'string' ? words : words(m) });
    // Blank it out (same length) so later matches keep their places in the note.
    rest = `${rest.slice(0, m.index)}${' '.repeat(m[0].length)}${rest.slice(m.index + m[0].length)}`;
  }
  const left = rest.replace(/^[\s;]+|[\s;]+$/g, '').replace(/;(\s*;)+/g, ';');
  if (left) found.push({ at: rest.indexOf(left.charAt(0)), text: left.charAt(0).toUpperCase() + left.slice(1) });
  return found
    .sort((a, b) => a.at - b.at)
    .map((f) => (/[.!?]$/.test(f.text) ? f.text : `${f.text}.`))
    .join(' ');
}

/** One line of the timeline: a step, or consecutive repeats of the same call folded together. */
export interface StepLine {
  /** The steps of the line, in order (one unless repeats were folded). */
  steps: AgentStep[];
  /** How many times the call was made (steps.length). */
  count: number;
  /** The line in plain words, with "(3 times)" when folded. */
  text: string;
  /** Time of all its steps together, in milliseconds. */
  ms: number;
}

/** The identity of a call: its action and its input, keys sorted, strings trimmed. */
function callKey(step: AgentStep): string {
  const sort = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(sort);
    if (v && typeof v === 'object')
      return Object.fromEntries(
        Object.entries(v)
          .sort(([a], [b]) => a.localeCompare(b))
          .map(([k, x]) => [k, sort(x)]),
      );
    return typeof v === 'string' ? v.trim() : v;
  };
  return `${step.action}\u0000${JSON.stringify(sort(step.input ?? {}))}`;
}

/**
 * The timeline's lines: each step described, and consecutive repeats of one call (same action and
 * input, or a step the tool runner answered from the previous one: "repeated call") folded into
 * one line with a count. The final answer is never folded.
 */
export function collapseSteps(steps: readonly AgentStep[]): StepLine[] {
  const lines: StepLine[] = [];
  for (const step of steps) {
    const line = lines.at(-1);
    const first = line?.steps[0];
    const prior = repeatOf(step);
    const same =
      line !== undefined &&
      first !== undefined &&
      step.kind !== 'final' &&
      first.kind !== 'final' &&
      (callKey(step) === callKey(first) || (prior !== null && line.steps.some((s) => s.index === prior)));
    if (same) {
      line.steps.push(step);
      line.count = line.steps.length;
      line.ms += step.timing.model_ms + step.timing.tool_ms;
      line.text = `${describeStep(first)} (${line.count} times)`;
    } else {
      lines.push({ steps: [step], count: 1, text: describeStep(step), ms: step.timing.model_ms + step.timing.tool_ms });
    }
  }
  return lines;
}
