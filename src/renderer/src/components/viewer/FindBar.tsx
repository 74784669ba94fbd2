import { useEffect, useRef } from 'react';
import { useViewer } from '../../stores/viewer';

/**
 * Find in the document (Ctrl/Cmd+F in the viewer): the words are boxed on the page, "n of m",
 * Enter / Shift+Enter for the next / previous across pages, Esc closes. Opened from a search
 * result, it shows the search's words the same way.
 */
export function FindBar({ onClose }: { onClose(): void }) {
  const find = useViewer((s) => s.find);
  const docLoaded = useViewer((s) => s.doc !== null);
  const focusTick = useViewer((s) => s.findFocus);
  const { setFindQuery, stepHit } = useViewer.getState();
  const input = useRef<HTMLInputElement>(null);
  useEffect(() => {
    if (focusTick > 0) input.current?.select();
  }, [focusTick]);
  const n = find.hits.length;
  const status = !find.query.trim()
    ? ''
    : !docLoaded
      ? 'Searching…'
      : n === 0
        ? 'No matches'
        : `${find.current >= 0 ? find.current + 1 : 0} of ${n}${n >= 5000 ? '+' : ''}`;
  return (
    <div className="find-bar" role="search" aria-label="Find in document">
      <label className="small" htmlFor="viewer-find">
        Find in document
      </label>
      <input
        id="viewer-find"
        ref={input}
        type="search"
        aria-describedby="viewer-find-status"
        value={find.query}
        placeholder="Words in this document"
        onChange={(e) => setFindQuery(e.target.value)}
        onKeyDown={(e) => {
          if (e.key === 'Enter') {
            e.preventDefault();
            stepHit(e.shiftKey ? -1 : 1);
          } else if (e.key === 'Escape') {
            e.preventDefault();
            e.stopPropagation();
            onClose();
          }
        }}
      />
      <span id="viewer-find-status" className="small find-status" role="status" data-testid="find-status">
        {status}
      </span>
      <button
        type="button"
        className="btn btn-small"
        aria-label="Previous match"
        disabled={n === 0}
        onClick={() => stepHit(-1)}
      >
        ↑
      </button>
      <button
        type="button"
        className="btn btn-small"
        aria-label="Next match"
        disabled={n === 0}
        onClick={() => stepHit(1)}
      >
        ↓
      </button>
      <button type="button" className="btn-icon" aria-label="Close find" onClick={onClose}>
        ×
      </button>
    </div>
  );
}
