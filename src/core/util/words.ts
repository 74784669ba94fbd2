/**
 * Content words of a text for overlap measures (citation support, search result labels): lower
 * case, function words and legal filler dropped, lightly stemmed. Pure.
 */

const STOP = new Set(
  `a an the this that these those such each either neither both any all no not none some it its their there here they he she we you i
  is are was were be been being am do does did has have had having will would shall should may might must can could
  of to in on at by for from with without within under upon over into onto out about above below between among through during
  before after until than then so as if or and but nor also only other another same own more most less least very too
  which who whom whose what when where while how why whether per via any all party parties agreement hereunder thereof hereof herein
  according pursuant said says state states stated provides provide provided document passage`.split(/\s+/),
);

/** A light stem: common suffixes of longer words, then the plural ("notices" → "notice", "taxes" → "tax"). */
function stem(w: string): string {
  let t = w.length > 5 ? w.replace(/(?:ations?|ings?|ments?|ed|ly|ions?)$/, '') : w;
  if (/(?:ss|us|is)$/.test(t)) return t;
  t = /(?:[sxz]|ch|sh)es$/.test(t) ? t.slice(0, -2) : t.replace(/s$/, '');
  return t;
}

/** Content words, lightly stemmed ("terminates", "terminated" → "terminat"; "notices" → "notice"). */
export function contentWords(text: string): string[] {
  const out: string[] = [];
  for (const m of text.toLowerCase().matchAll(/[\p{L}\p{N}]+/gu)) {
    const w = m[0];
    if (STOP.has(w) || w.length < 2) continue;
    out.push(stem(w));
  }
  return out;
}
