import type { SearchResponse } from '../../../shared/contract/search';
import { useSearch } from '../stores/search';
import { useViewer } from '../stores/viewer';
import { useMemo } from 'react';
import { plural } from '../lib/display-format';
import { queryTerms, splitMarked, termPattern } from '../lib/viewer-find';

/** A result's text with the query's words marked. */
function Snippet({ text, pattern }: { text: string; pattern: RegExp | null }) {
  const shown = text.length > 360 ? `${text.slice(0, 360)}…` : text;
  return (
    <span className="result-text">
      {splitMarked(shown, pattern).map((part, i) =>
        part.marked ? (
          <mark key={i} className="term-mark">
            {part.text}
          </mark>
        ) : (
          part.text
        ),
      )}
    </span>
  );
}

/** What the results say about how the search ran: limited to chosen documents, without meaning, without the second check, focused first. */
function SearchNotices() {
  const response = useSearch((s) => s.response);
  const query = useSearch((s) => s.query);
  const caseId = useSearch((s) => s.caseId);
  const limitedTo = useSearch((s) => s.limitedTo);
  const focus = useSearch((s) => s.focus);
  const run = useSearch((s) => s.run);
  return (
    <>
      {limitedTo && (
        <p className="pad small notice" role="note" aria-label="Search limited" data-testid="search-limited">
          Searched only the {limitedTo.length === 1 ? 'document' : `${limitedTo.length} documents`} you chose:{' '}
          {limitedTo.map((d) => d.file_name).join(', ')}.{' '}
          <button type="button" className="btn btn-small" onClick={() => caseId && void run(caseId, query, { focus })}>
            Search the whole case
          </button>
        </p>
      )}
      {response && !response.semantic && (
        <p className="pad small notice" role="note">
          Semantic search is off{response.semantic_reason ? `: ${response.semantic_reason}` : ''}. Results use keywords
          only.
        </p>
      )}
      {response && response.reranked === false && (
        <p className="pad small notice" role="note">
          The second check of the best passages did not run{response.rerank_reason ? `: ${response.rerank_reason}` : ''}
          . Results keep their search order (import a reranker model in Settings → Models, or clear “Second check of the
          best passages” in Settings).
        </p>
      )}
      {response?.focus && (
        <p className="pad small notice" role="note" aria-label="Search focus">
          Searched first in{' '}
          {response.focus.files.length === 1 ? 'the document' : `${response.focus.files.length} documents`} the question
          names ({response.focus.matched.map((m) => `“${m}”`).join(', ')}):{' '}
          {response.focus.files.map((f) => f.file_name).join(', ')}.
          {response.focus.widened ? ' They gave fewer results than asked; the rest come from the whole case.' : ''}{' '}
          <button
            type="button"
            className="btn btn-small"
            onClick={() => caseId && void run(caseId, query, { focus: false, files: limitedTo })}
          >
            Search all documents
          </button>
        </p>
      )}
    </>
  );
}

/** The results, best first: each opens its passage on the page, with the query's words marked. */
function ResultList({ response, query }: { response: SearchResponse; query: string }) {
  const open = useViewer((s) => s.open);
  const pattern = useMemo(() => termPattern(queryTerms(query)), [query]);
  return (
    <ol className="results" aria-label={plural(response.results.length, 'result')}>
      {response.results.map((r) => (
        <li key={r.chunk_id} className="result">
          <button
            type="button"
            className="result-button"
            onClick={() =>
              open({
                file_id: r.file_id,
                file_name: r.file_name,
                version: r.version,
                pages: r.citation.pages,
                start: r.citation.start,
                end: r.citation.end,
                query,
              })
            }
          >
            <span className="result-head">
              <span className="result-file ellipsis">{r.file_name}</span>
              {!r.place && (
                <span className="muted small">
                  {r.pages[0] === r.pages[1] ? `p. ${r.pages[0]}` : `pp. ${r.pages[0]}–${r.pages[1]}`}
                </span>
              )}
              <span className={`label label-${r.label}`}>{r.label}</span>
            </span>
            {r.place && <span className="muted small ellipsis result-place">{r.place}</span>}
            {r.section_path && <span className="muted small ellipsis">§ {r.section_path.join(' › ')}</span>}
            <Snippet text={r.text} pattern={pattern} />
          </button>
        </li>
      ))}
    </ol>
  );
}

export function SearchResults() {
  const response = useSearch((s) => s.response);
  const running = useSearch((s) => s.running);
  const error = useSearch((s) => s.error);
  const query = useSearch((s) => s.query);
  const limitedTo = useSearch((s) => s.limitedTo);
  const close = useSearch((s) => s.close);
  return (
    <section className="pane pane-search" aria-label="Search results">
      <h2 className="pane-title">
        <span className="ellipsis">Results for “{query}”</span>
        <button type="button" className="btn btn-small" onClick={close}>
          Back to chat
        </button>
      </h2>
      <div className="pane-scroll">
        {running && <p className="pad muted">Searching…</p>}
        {error && (
          <p className="pad error" role="alert">
            {error}
          </p>
        )}
        <SearchNotices />
        {response && !running && response.results.length === 0 && (
          <p className="pad muted">
            {limitedTo ? 'Nothing in the documents you chose matches.' : 'Nothing in this case matches.'}
          </p>
        )}
        {response && <ResultList response={response} query={query} />}
      </div>
    </section>
  );
}
