/**
 * Numbers written in words ("forty-five", "one hundred and twenty", "two million"): the pattern
 * that finds a run of them and its value. Shared by fact comparison and relative dates.
 */

const UNITS: Record<string, number> = {
  zero: 0,
  one: 1,
  two: 2,
  three: 3,
  four: 4,
  five: 5,
  six: 6,
  seven: 7,
  eight: 8,
  nine: 9,
  ten: 10,
  eleven: 11,
  twelve: 12,
  thirteen: 13,
  fourteen: 14,
  fifteen: 15,
  sixteen: 16,
  seventeen: 17,
  eighteen: 18,
  nineteen: 19,
};
const TENS: Record<string, number> = {
  twenty: 20,
  thirty: 30,
  forty: 40,
  fourty: 40,
  fifty: 50,
  sixty: 60,
  seventy: 70,
  eighty: 80,
  ninety: 90,
};
const SCALES: Record<string, number> = { hundred: 100, thousand: 1_000, million: 1_000_000, billion: 1_000_000_000 };
const WORDS = [...Object.keys(UNITS), ...Object.keys(TENS), ...Object.keys(SCALES)].join('|');
export const NUMBER_WORD = new RegExp(`\\b(?:${WORDS})\\b`, 'i');
/** A run of number words, as a pattern source to build other patterns with (no flags, no boundaries). */
export const NUMBER_RUN_SOURCE = `(?:${WORDS})(?:(?:[\\s-]+and)?[\\s-]+(?:${WORDS}))*`;
export const NUMBER_RUN = new RegExp(`\\b${NUMBER_RUN_SOURCE}\\b`, 'gi');

/** The value of a run of number words ("forty-five", "one hundred and twenty", "two million"). */
export function numberWordsValue(run: string): number | null {
  let total = 0;
  let current = 0;
  let any = false;
  for (const w of run.toLowerCase().split(/[\s-]+/)) {
    if (w === 'and' || !w) continue;
    if (w in UNITS) current += UNITS[w]!;
    else if (w in TENS) current += TENS[w]!;
    else if (w === 'hundred') current = (current || 1) * 100;
    else if (w in SCALES) {
      total += (current || 1) * SCALES[w]!;
      current = 0;
    } else return null;
    any = true;
  }
  return any ? total + current : null;
}
