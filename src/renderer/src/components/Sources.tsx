import type { CheckedCitation, ChunkRef } from '../../../shared/contract/chat';
import { ocrCitationNote, quoteText } from '../../../shared/citation-text';
import { useUi } from '../stores/ui';
import { useViewer } from '../stores/viewer';
import {
  checkWords,
  citationPlace,
  citeOrder,
  copyQuote,
  isGreen,
  sourceOf,
  supportOf,
  verdictText,
} from '../lib/citations';

/**
 * The supporting words; without a span (sessions saved before it), the quote checked in the passage
 * (only when it was found there: an unsupported quote is the answer's words, not the document's),
 * else the passage's one-line summary.
 */
function quoteOf(c: CheckedCitation, refs: ChunkRef[] | undefined): string {
  return quoteText(c) || (isGreen(c) ? c.quotes?.[0] : undefined) || refs?.find((r) => r.cite === c.id)?.summary || '';
}

/**
 * An answer's cited passages, in chip order: number, the supporting quote, where it is, its
 * verdict in words and colour, and (green ones) a button to copy the quote with its citation. A row
 * opens the viewer like its chip.
 */
export function Sources({ text, citations, refs }: { text: string; citations: CheckedCitation[]; refs?: ChunkRef[] }) {
  const open = useViewer((s) => s.open);
  const toast = useUi((s) => s.toast);
  const rows = citeOrder(text)
    .map((id, i) => ({ id, n: i + 1, c: citations.find((x) => x.id === id) }))
    .filter((r): r is { id: string; n: number; c: CheckedCitation } => r.c !== undefined);
  if (!rows.length) return null;
  return (
    <section className="sources" aria-label="Sources">
      <h3 className="sources-title">Sources</h3>
      <ol className="source-list">
        {rows.map(({ id, n, c }) => {
          const support = supportOf(c);
          const src = sourceOf(c, String(n));
          const quote = quoteOf(c, refs);
          const place = support === 'invented' ? 'No such passage' : citationPlace(c);
          // A passage of "Find passages": graded by relevance, never marked green for being on the page.
          const passage = Boolean(c.relevance) && isGreen(c);
          return (
            <li
              key={id}
              className={`source ${passage ? 'source-passage' : `source-${support}`}`}
              data-cite={id}
              data-support={support}
              {...(passage ? { 'data-relevance': c.relevance } : {})}
            >
              <button
                type="button"
                className="source-open"
                disabled={!src}
                aria-label={`Source ${n}: ${place}${src ? ' — open it' : ''}`}
                onClick={() => src && open(src)}
              >
                <span className={`source-n ${passage ? 'n-passage' : `n-${support}`}`} aria-hidden="true">
                  {n}
                </span>
                <span className="source-body">
                  {quote && <span className="source-quote">“{quote}”</span>}
                  <span className="source-place small">{place}</span>
                </span>
              </button>
              <div className="source-foot">
                <span
                  className={`source-state small ${passage ? `state-rel-${c.relevance}` : `state-${support}`}`}
                  title={verdictText(c)}
                >
                  {support === 'not_supported' ? verdictText(c) : checkWords(c)}
                </span>
                {ocrCitationNote(c) && (
                  <span className="source-ocr small state-not_supported" data-ocr-note>
                    {ocrCitationNote(c)}
                  </span>
                )}
                {/* Only words the check found in the document are offered for pasting into a brief. */}
                {isGreen(c) && (
                  <button
                    type="button"
                    className="btn btn-small source-copy"
                    aria-label={`Copy quote with citation (source ${n})`}
                    onClick={() => void copyQuote(c, toast)}
                  >
                    Copy quote with citation
                  </button>
                )}
              </div>
            </li>
          );
        })}
      </ol>
    </section>
  );
}
