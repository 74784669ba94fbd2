/**
 * A chat session (or one of its turns) as a document a lawyer can file: Markdown, or Word (.docx)
 * with each citation a real footnote. The citations read the same as in the app and the CLI
 * (`shared/citation-text.ts`): "Cardlytics Maintenance Agreement, p. 12: “the quoted words” — Supported".
 * The answer's `[cite:id]` markers (the syntax `findCites` reads) become footnote references,
 * numbered in the order they first appear, continuing from one answer to the next.
 */
import type { ChatExport, ChatMessage, CheckedCitation } from '../../shared/contract/chat';
import { checkWords, citationPlace, isGreen, quoteText, supportOf, SUPPORT_WORDS } from '../../shared/citation-text';
import { CasefileError } from '../../shared/errors';
import { findCites } from '../citations/verify';
import type { SessionFile } from './sessions';
import { fileNameFrom } from './titles';

export interface ExportOptions {
  caseName: string;
  format?: 'md' | 'docx';
  /** Only this turn's question and answer. */
  turnId?: string;
  /** The export's date (tests pass one). */
  now?: Date;
}

/** One question and its answer (either may be missing in a damaged or cancelled session). */
export interface ExportTurn {
  turnId: string;
  question?: ChatMessage;
  answer?: ChatMessage;
}

/** A stretch of an answer's text: words, or a footnote reference. */
export type AnswerPiece = { text: string } | { note: number };

/** One footnote: where it points and what the check found, in plain words. */
export interface ExportNote {
  n: number;
  id: string;
  /** "Cardlytics Maintenance Agreement, p. 12", or "Unknown source (id made01)". */
  place: string;
  /** The supporting words, one line (empty when the session kept none). */
  quote: string;
  /** "Supported", "Not supported: <reason>", … */
  verdict: string;
}

/** The session's turns in order, or only `turnId`'s (not_found when the session has no such turn). */
export function exportTurns(s: SessionFile, turnId?: string): ExportTurn[] {
  const turns: ExportTurn[] = [];
  const byId = new Map<string, ExportTurn>();
  for (const m of s.messages) {
    let t = byId.get(m.turn_id);
    if (!t || (m.role === 'user' && t.question) || (m.role === 'assistant' && t.answer)) {
      t = { turnId: m.turn_id };
      byId.set(m.turn_id, t);
      turns.push(t);
    }
    if (m.role === 'user') t.question = m;
    else t.answer = m;
  }
  if (turnId === undefined) return turns;
  const picked = turns.filter((t) => t.turnId === turnId);
  if (!picked.length) throw new CasefileError('not_found', `No question ${turnId} in the chat session ${s.id}.`);
  return picked;
}

/** The verdict in the shared words; a reason is added where the citation is not green. */
export function verdictText(c: CheckedCitation): string {
  const words = SUPPORT_WORDS[supportOf(c)];
  if (isGreen(c)) return checkWords(c);
  // Reasons of invented ids start "invented: …"; the verdict already says so.
  const reason = c.reason.replace(/^invented:\s*/i, '').trim();
  return reason ? `${words}: ${reason}` : words;
}

function noteOf(n: number, id: string, c: CheckedCitation | undefined, finished: boolean): ExportNote {
  // A marker without a checked citation: an answer cut short (cancelled, failed) is not checked.
  if (!c)
    return {
      n,
      id,
      place: `Unknown source (id ${id})`,
      quote: '',
      verdict: finished ? 'Not checked' : 'Not checked: the answer was not finished',
    };
  const known = c.title || c.file_name;
  return {
    n,
    id,
    place: known ? citationPlace(c) : `Unknown source (id ${id})`,
    quote: quoteText(c),
    verdict: verdictText(c),
  };
}

/**
 * The answer's text with its cite markers replaced by footnote numbers (from `first`), and the
 * footnotes in order. A citation the text never marks gets a footnote at the answer's end.
 */
export function answerNotes(m: ChatMessage, first: number): { pieces: AnswerPiece[]; notes: ExportNote[] } {
  const text = m.content;
  const byId = new Map((m.citations ?? []).map((c) => [c.id, c]));
  const numbers = new Map<string, number>();
  const notes: ExportNote[] = [];
  const numberOf = (id: string): number => {
    let n = numbers.get(id);
    if (n === undefined) {
      n = first + notes.length;
      numbers.set(id, n);
      notes.push(noteOf(n, id, byId.get(id), m.status === 'done'));
    }
    return n;
  };
  const pieces: AnswerPiece[] = [];
  let pos = 0;
  const markers = new Map<number, string[]>();
  for (const { id, at } of findCites(text)) markers.set(at, [...(markers.get(at) ?? []), id]);
  for (const [at, ids] of markers) {
    // The reference sits on the word it follows: "notice[1]." rather than "notice [1].".
    const before = text.slice(pos, at).replace(/[ \t]+$/, '');
    if (before) pieces.push({ text: before });
    for (const id of ids) pieces.push({ note: numberOf(id) });
    pos = text.indexOf(']', at) + 1;
  }
  if (pos < text.length) pieces.push({ text: text.slice(pos) });
  const unmarked = (m.citations ?? []).filter((c) => !numbers.has(c.id));
  for (const c of unmarked) pieces.push({ note: numberOf(c.id) });
  return { pieces, notes };
}

/** Plain-words notes on how the answer was made, in the order they are shown above the answer. */
export function answerKindNotes(m: ChatMessage): string[] {
  const out: string[] = [];
  if (m.answer_kind === 'extractive')
    out.push(
      'Passages found without a model: the best passages for the question, quoted as they are in the documents.',
    );
  if (m.answer_kind === 'no_documents')
    out.push('Answered without a model: the case has no documents that can be searched.');
  if (m.fallback) out.push(`The model’s own answer was not used: ${m.fallback.reason}.`.replace(/\.\.$/, '.'));
  return out;
}

/** The "Ungrounded" warning for a finished agent answer that is not grounded, or undefined. */
export function ungroundedNote(m: ChatMessage): string | undefined {
  if ((m.answer_kind ?? 'agent') !== 'agent' || m.status !== 'done' || m.grounded !== false) return undefined;
  return (m.citations ?? []).some(isGreen)
    ? 'Ungrounded: some statements of this answer are not supported by the passages they cite.'
    : 'Ungrounded: no citation of this answer could be verified.';
}

/** "2026-11-05 14:03 UTC". */
export function exportDate(now: Date): string {
  return `${now.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

/** The question lines shown at the top: one question, or a numbered list. */
function questionsOf(turns: ExportTurn[]): string[] {
  return turns.map((t) => t.question?.content.replace(/\s+/g, ' ').trim()).filter((q): q is string => !!q);
}

/** The questions under the heading; none when the heading is the one question. */
function questionsHead(turns: ExportTurn[], heading: string): string[] {
  const qs = questionsOf(turns);
  if (qs.length === 1) return qs[0] === heading ? [] : [`Question: ${qs[0]}`];
  return qs.length ? ['Questions:', '', ...qs.map((q, i) => `${i + 1}. ${q}`)] : [];
}

/**
 * The export's heading, whole: the question when one answer is exported (`turnId`); else the chat's
 * title, unless it was cut ("…"): then its first question.
 */
function exportHeading(s: SessionFile, turns: ExportTurn[], turnId: string | undefined): string {
  const first = questionsOf(turns)[0];
  if (first && (turnId !== undefined || s.title.includes('…'))) return first;
  return s.title;
}

function footnoteLine(note: ExportNote): string {
  return `[^${note.n}]: ${note.place}${note.quote ? `: “${note.quote}”` : ''} — ${note.verdict}`;
}

/** The session as Markdown: questions, answers with their citations as footnotes, coverage notes. */
export function exportMarkdown(
  s: SessionFile,
  caseName: string,
  options: { turnId?: string; now?: Date } = {},
): string {
  const turns = exportTurns(s, options.turnId);
  const heading = exportHeading(s, turns, options.turnId);
  const lines = [
    `# ${heading}`,
    '',
    `Case: ${caseName}  `,
    `Session: ${s.id}  `,
    `Exported: ${exportDate(options.now ?? new Date())}`,
    '',
  ];
  const head = questionsHead(turns, heading);
  if (head.length) lines.push(...head, '');
  let next = 1;
  for (const t of turns) {
    if (t.question) lines.push(`## Question`, '', t.question.content, '');
    const m = t.answer;
    if (!m) continue;
    lines.push(`### Answer${m.status && m.status !== 'done' ? ` (${m.status})` : ''}`, '');
    for (const note of answerKindNotes(m)) lines.push(`_${note}_`, '');
    const { pieces, notes } = answerNotes(m, next);
    next += notes.length;
    const body = pieces.map((p) => ('note' in p ? `[^${p.note}]` : p.text)).join('');
    lines.push(body.trim() ? body : '_No answer._', '');
    const warning = ungroundedNote(m);
    if (warning) lines.push(`> ${warning}`, '');
    if (notes.length) lines.push(...notes.map(footnoteLine), '');
    if (m.coverage?.note) lines.push(`_Coverage: ${m.coverage.note}_`, '');
  }
  return lines.join('\n');
}

/**
 * The file name: from the question when one is exported, else from the chat's title (which tells
 * chats apart); whole words of letters, digits, spaces, - and _ (titles.ts), else the session id.
 */
export function exportFileName(s: SessionFile, format: 'md' | 'docx', turnId?: string): string {
  const qs = turnId === undefined ? [] : questionsOf(exportTurns(s, turnId));
  return `${fileNameFrom(qs.length === 1 ? qs[0]! : s.title) || s.id}.${format}`;
}

/** `chat.export`: the Markdown always; the Word document too when `format` is `docx`. */
export async function exportChat(s: SessionFile, options: ExportOptions): Promise<ChatExport> {
  const format = options.format ?? 'md';
  const now = options.now ?? new Date();
  const turns = exportTurns(s, options.turnId);
  const markdown = exportMarkdown(s, options.caseName, {
    now,
    ...(options.turnId !== undefined ? { turnId: options.turnId } : {}),
  });
  if (format === 'md') return { markdown, filename: exportFileName(s, 'md', options.turnId), format };
  const docx_base64 = await exportDocx(s, turns, { caseName: options.caseName, now, turnId: options.turnId });
  return { markdown, filename: exportFileName(s, 'docx', options.turnId), format, docx_base64 };
}

// ---- Word ----

type DocxLib = typeof import('docx');
type Paragraph = import('docx').Paragraph;
type ParagraphChild = import('docx').ParagraphChild;

/** Text Word can hold: XML 1.0 has no C0 controls (but tab, newline) and no lone surrogates. */
function xmlSafe(text: string): string {
  return text.replace(
    /[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g,
    '',
  );
}

/** Runs of `text`, `**bold**` stretches bold (models write them). */
function textRuns(d: DocxLib, text: string, style: { italics?: boolean; bold?: boolean } = {}): ParagraphChild[] {
  const out: ParagraphChild[] = [];
  for (const part of xmlSafe(text).split(/(\*\*[^*\n]+\*\*)/)) {
    if (!part) continue;
    const bold = /^\*\*[^*\n]+\*\*$/.test(part);
    out.push(new d.TextRun({ text: bold ? part.slice(2, -2) : part, ...style, ...(bold ? { bold: true } : {}) }));
  }
  return out;
}

function para(d: DocxLib, text: string, style: { italics?: boolean; bold?: boolean } = {}): Paragraph {
  return new d.Paragraph({ children: textRuns(d, text, style) });
}

/**
 * The answer as paragraphs: one per line (blank lines dropped), "- " / "* " / "• " lines as
 * bullets, "# " lines bold, each cite marker a footnote reference.
 */
function answerParagraphs(d: DocxLib, pieces: AnswerPiece[]): Paragraph[] {
  const lines: AnswerPiece[][] = [[]];
  for (const p of pieces) {
    if ('note' in p) {
      lines[lines.length - 1]!.push(p);
      continue;
    }
    p.text.split('\n').forEach((part, i) => {
      if (i > 0) lines.push([]);
      if (part) lines[lines.length - 1]!.push({ text: part });
    });
  }
  const out: Paragraph[] = [];
  for (const line of lines) {
    const head = line[0] && 'text' in line[0] ? line[0].text : '';
    const bullet = /^\s*[-*•]\s+/.exec(head);
    const heading = /^\s*#{1,6}\s+/.exec(head);
    const strip = bullet?.[0].length ?? heading?.[0].length ?? 0;
    const children: ParagraphChild[] = [];
    line.forEach((p, i) => {
      if ('note' in p) children.push(new d.FootnoteReferenceRun(p.note));
      else children.push(...textRuns(d, i === 0 ? p.text.slice(strip) : p.text, heading ? { bold: true } : {}));
    });
    if (!line.some((p) => 'note' in p || p.text.trim())) continue;
    out.push(new d.Paragraph({ children, ...(bullet ? { bullet: { level: 0 } } : {}) }));
  }
  return out;
}

/** One footnote: "Title, p. 12: “quoted words” — Supported". */
function footnoteParagraph(d: DocxLib, note: ExportNote): Paragraph {
  return new d.Paragraph({
    children: [
      ...textRuns(d, note.place),
      ...(note.quote ? textRuns(d, `: “${note.quote}”`) : []),
      ...textRuns(d, ` — ${note.verdict}`),
    ],
  });
}

/** The document's opening: title, case, date, the question(s). */
function docxHead(d: DocxLib, heading: string, turns: ExportTurn[], caseName: string, now: Date): Paragraph[] {
  const out = [
    new d.Paragraph({ heading: d.HeadingLevel.TITLE, children: textRuns(d, heading) }),
    para(d, `Case: ${caseName}`),
    para(d, `Exported: ${exportDate(now)}`),
  ];
  out.push(
    ...questionsHead(turns, heading)
      .filter((l) => l)
      .map((l) => para(d, l)),
  );
  return out;
}

/** The turns as a Word document (base64), each citation a footnote. */
async function exportDocx(
  s: SessionFile,
  turns: ExportTurn[],
  options: { caseName: string; now: Date; turnId?: string | undefined },
): Promise<string> {
  // Loaded only for Word exports: the library is about 1 MB of JavaScript.
  const d: DocxLib = await import('docx');
  const heading = exportHeading(s, turns, options.turnId);
  const body = docxHead(d, heading, turns, options.caseName, options.now);
  const footnotes: Record<string, { children: Paragraph[] }> = {};
  let next = 1;
  turns.forEach((t, i) => {
    if (t.question)
      body.push(
        new d.Paragraph({
          heading: d.HeadingLevel.HEADING_1,
          children: textRuns(d, turns.length > 1 ? `${i + 1}. ${t.question.content}` : t.question.content),
        }),
      );
    const m = t.answer;
    if (!m) return;
    body.push(
      new d.Paragraph({
        heading: d.HeadingLevel.HEADING_2,
        children: textRuns(d, `Answer${m.status && m.status !== 'done' ? ` (${m.status})` : ''}`),
      }),
    );
    for (const note of answerKindNotes(m)) body.push(para(d, note, { italics: true }));
    const { pieces, notes } = answerNotes(m, next);
    next += notes.length;
    const paragraphs = answerParagraphs(d, pieces);
    body.push(...(paragraphs.length ? paragraphs : [para(d, 'No answer.', { italics: true })]));
    const warning = ungroundedNote(m);
    if (warning) body.push(para(d, warning, { bold: true }));
    if (m.coverage?.note) body.push(para(d, `Coverage: ${m.coverage.note}`, { italics: true }));
    for (const note of notes) footnotes[note.n] = { children: [footnoteParagraph(d, note)] };
  });
  const doc = new d.Document({
    creator: 'Casefile',
    title: xmlSafe(heading),
    description: xmlSafe(`Chat export, case ${options.caseName}`),
    footnotes,
    sections: [{ children: body }],
  });
  return d.Packer.toBase64String(doc);
}
