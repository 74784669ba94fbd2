/**
 * Output a small local model produces when it fails: a loop ("the term shall be five years" sixty
 * times), its format's keys written as the answer (`final_answer`, `Action:`, JSON), nothing at
 * all, far more than asked, or another language. Such text is never shown as an answer: the turn
 * ends with the extractive answer instead (extractive.ts). Pure.
 */

/** Words of a text, lower-cased, cite markers dropped. */
function wordsOf(text: string): string[] {
  return text
    .replace(/\[cite:[^\]]*\]/g, ' ')
    .toLowerCase()
    .split(/[^\p{L}\p{N}'’$%-]+/u)
    .filter(Boolean);
}

/**
 * The same run of 3 to 40 words three times in a row, somewhere in `words` (`atEnd`: only a run
 * that ends among the last words, for checking a stream as it grows — it is cut mid-word).
 */
function repeatedRun(words: string[], atEnd: boolean): boolean {
  const n = words.length;
  for (let k = 3; k <= 40 && k * 3 <= n; k++) {
    const first = atEnd ? Math.max(0, n - 4 * k - 1) : 0;
    const starts = Array.from({ length: n - 3 * k - first + 1 }, (_, i) => first + i);
    for (const i of starts) {
      let same = true;
      for (let j = 0; j < k && same; j++)
        same = words[i + j] === words[i + k + j] && words[i + j] === words[i + 2 * k + j];
      if (same) return true;
    }
  }
  return false;
}

/** True when a streamed text has started to loop: stop generating. */
export function isLooping(text: string): boolean {
  return repeatedRun(wordsOf(text), true);
}

/** A sentence said three times or more, or a run of words repeated three times in a row. */
export function repeatsItself(text: string): boolean {
  const sentences = text
    .replace(/\[cite:[^\]]*\]/g, ' ')
    .split(/(?<=[.!?])\s+|\n+/)
    .map((s) =>
      s
        .toLowerCase()
        .replace(/[^\p{L}\p{N}]+/gu, ' ')
        .trim(),
    )
    .filter((s) => s.length > 8);
  const counts = new Map<string, number>();
  for (const s of sentences) counts.set(s, (counts.get(s) ?? 0) + 1);
  if ([...counts.values()].some((c) => c >= 3)) return true;
  return repeatedRun(wordsOf(text), false);
}

const FORMAT_TOKENS =
  /^(?:final[\s_-]*answer|finally[\s_-]*a[\s_-]*n?swer|answer|action|action[\s_-]*input|thought|observation|tool|tool[\s_-]*call|json|null|undefined|none|n\/a)\b\s*:?\s*$/i;

/** The model wrote its instructions' format instead of an answer. */
function formatNoise(text: string): boolean {
  const t = text.trim();
  if (FORMAT_TOKENS.test(t)) return true;
  if (/^[a-z]+(?:_[a-z]+)+$/i.test(t)) return true; // final_answer, finally_a_nswer
  if (/^\s*[{[]/.test(t) && /[}\]]\s*$/.test(t)) return true; // a JSON object or array
  if (/"(?:action|action_input|thought|final_answer)"\s*:/.test(t)) return true;
  if (/^(?:Thought|Action|Action Input|Observation)\s*:/im.test(t) && t.split('\n').length <= 6) return true;
  return false;
}

const ENGLISH = new Set(
  'the a an of to in and or is are was were be for on by with that this it as at from not no may shall will must any all has have'.split(
    ' ',
  ),
);

/** Share of words that are common English words (0 for a text with none). */
function englishShare(words: string[]): number {
  if (!words.length) return 0;
  return words.filter((w) => ENGLISH.has(w)).length / words.length;
}

/** Share of letters outside the Latin script. */
function nonLatinShare(text: string): number {
  const letters = [...text].filter((c) => /\p{L}/u.test(c));
  if (!letters.length) return 0;
  return letters.filter((c) => !/\p{Script=Latin}/u.test(c)).length / letters.length;
}

export interface DegenerateOptions {
  /** The answer length asked for (characters); an answer over 3× this is a runaway. */
  answerChars?: number;
}

/**
 * Why `answer` is not an answer (plain words for the user), or null when it reads as one. It says
 * nothing of truth: that is verification's job.
 */
export function degenerateReason(answer: string, question: string, options: DegenerateOptions = {}): string | null {
  const text = answer.trim();
  const bare = text.replace(/\[cite:[^\]]*\]/g, '').trim();
  if (!bare || !/[\p{L}\p{N}]/u.test(bare)) return 'the model gave no answer';
  if (formatNoise(bare)) return 'the model wrote the words of its instructions instead of an answer';
  if (repeatsItself(text)) return 'the model repeated itself';
  const limit = (options.answerChars ?? 1500) * 3;
  if (text.length > limit) return 'the answer ran far longer than asked';
  const words = wordsOf(bare);
  const qWords = wordsOf(question);
  const questionEnglish = englishShare(qWords) >= 0.1 || nonLatinShare(question) < 0.2;
  if (questionEnglish && nonLatinShare(bare) > 0.3) return 'the answer is not in the language of the question';
  if (questionEnglish && words.length >= 12 && englishShare(words) < 0.04)
    return 'the answer is not in the language of the question';
  if (words.length < 3 && !/\[cite:/.test(text) && !/^(?:yes|no)\b/i.test(bare))
    return 'the answer is too short to say anything';
  return null;
}
