/**
 * What a chat is called: its title in the list of chats (the question, whole when it is short; a
 * later chat that would share an earlier one's title gets the words that differ), and the name of
 * a file it is exported to (whole words, safe characters, never "…").
 */

/** Longest title shown whole; a longer question is cut at a word. */
export const TITLE_MAX = 80;
/** Longest export file name before its extension. */
export const FILE_NAME_MAX = 80;

const squash = (text: string) => text.replace(/\s+/g, ' ').trim();

/** `text` cut to at most `max` characters at a word boundary (a single longer word is cut in it). */
export function cutAtWord(text: string, max: number): string {
  const t = squash(text);
  if (t.length <= max) return t;
  const space = t.lastIndexOf(' ', max);
  return (space > 0 ? t.slice(0, space) : t.slice(0, max)).replace(/[\s,;:.–—-]+$/, '');
}

/** The question as a title: whole up to {@link TITLE_MAX}, else its first words and "…". */
function plainTitle(question: string): string {
  const q = squash(question);
  return q.length <= TITLE_MAX ? q : `${cutAtWord(q, TITLE_MAX - 1)}…`;
}

const words = (text: string) => squash(text).split(' ').filter(Boolean);
const same = (a: string, b: string) => a.localeCompare(b, undefined, { sensitivity: 'accent' }) === 0;

/** How many leading words `a` and `b` share (case aside). */
function sharedWords(a: string[], b: string[]): number {
  let i = 0;
  while (i < a.length && i < b.length && same(a[i]!, b[i]!)) i++;
  return i;
}

/**
 * A new chat's title from its first question, told apart from the case's other chats: when the
 * plain title is taken, its first words and those where it leaves the others ("What is the governing
 * law of the Water Now distributor … in Texas?"); when the question is the same, a number ("(2)").
 */
export function chatTitle(question: string, others: readonly TitledChat[] = []): string {
  return toldApart(plainTitle(question), question, others);
}

/** A chat's title and its first question. */
export interface TitledChat {
  title: string;
  question: string;
}

/**
 * `title`, or, when one of `others` already has it, a title told apart as {@link chatTitle} does:
 * also for chats titled alike before titles were told apart, as the list of chats shows them.
 */
export function toldApart(title: string, question: string, others: readonly TitledChat[]): string {
  const taken = (t: string) => others.some((o) => same(o.title, t));
  const plain = title;
  if (!plain || !taken(plain)) return plain;
  const mine = words(question);
  const from = Math.max(...others.filter((o) => same(o.title, plain)).map((o) => sharedWords(mine, words(o.question))));
  if (from < mine.length) {
    const tail = mine.slice(from).join(' ');
    const shownTail = tail.length <= 40 ? tail : `${cutAtWord(tail, 39)}…`;
    const head = cutAtWord(mine.slice(0, from).join(' '), Math.max(TITLE_MAX - shownTail.length - 3, 12));
    const told = head ? `${head} … ${shownTail}` : shownTail;
    if (!taken(told)) return told;
  }
  let n = 2;
  while (taken(`${plain} (${n})`)) n++;
  return `${plain} (${n})`;
}

/** A file name (no extension) from a title or question: letters, digits, spaces, - and _, whole words, no "…". */
export function fileNameFrom(text: string): string {
  const safe = squash(text.replace(/…/g, ' ').replace(/[^\p{L}\p{N} _-]+/gu, ''));
  return cutAtWord(safe, FILE_NAME_MAX);
}
