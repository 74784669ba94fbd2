/** Sentences of an answer or of a passage, as verification, the extractive answer and a search's second look read them. */

const ABBREVIATION =
  /(?:^|[\s(])(?:[A-Za-z]|Dr|Mr|Mrs|Ms|Prof|Inc|Ltd|Co|Corp|No|Nos|v|vs|St|Jr|Sr|Sec|Art|para|p|pp|e\.g|i\.e|etc|U\.S|cf|al)$/i;

/** [start, end) of each quoted stretch, so sentence ends inside a quote are not taken as ends. */
function quoteRanges(text: string): Array<[number, number]> {
  return [...text.matchAll(/"[^"]*"|“[^”]*”|«[^»]*»/g)].map(
    (m) => [m.index, m.index + m[0].length] as [number, number],
  );
}

/**
 * Sentence ranges of `text`; a cite placed right after a sentence's full stop belongs to that
 * sentence. Full stops inside quotes and after common abbreviations (Dr., Inc., No., v.) do not end one.
 */
export function sentenceRanges(text: string): Array<[number, number]> {
  const ranges: Array<[number, number]> = [];
  const quotes = quoteRanges(text);
  let start = 0;
  const re = /[.!?](?=["”’')\]]*\s)|\n+/g;
  for (const m of text.matchAll(re)) {
    if (m[0][0] !== '\n') {
      if (quotes.some(([qs, qe]) => m.index > qs && m.index < qe - 1)) continue;
      if (m[0] === '.' && ABBREVIATION.test(text.slice(Math.max(0, m.index - 8), m.index))) continue;
    }
    let end = m.index + m[0].length;
    // Pull trailing closing quotes and following cite markers into this sentence.
    const rest = text.slice(end);
    const trailing = /^["”’')\]]*(?:\s*\[cite:[^\]]*\])*/.exec(rest);
    if (trailing) end += trailing[0].length;
    if (end > start) ranges.push([start, end]);
    start = end;
  }
  if (start < text.length) ranges.push([start, text.length]);
  return ranges;
}

/** Sentence ranges of a document's text[s, e) in document offsets, trimmed, at least 8 characters. */
export function passageSentences(text: string, s: number, e: number): Array<[number, number]> {
  // A document's single line breaks are where the page wrapped, not where a sentence ends (same length, so offsets hold).
  return sentenceRanges(text.slice(s, e).replace(/([^\n])\n(?!\n)/g, '$1 '))
    .map(([a, b]) => {
      const piece = text.slice(s + a, s + b);
      const lead = piece.length - piece.trimStart().length;
      const trail = piece.length - piece.trimEnd().length;
      return [s + a + lead, s + b - trail] as [number, number];
    })
    .filter(([a, b]) => b - a >= 8);
}
