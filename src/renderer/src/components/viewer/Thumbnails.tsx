import { useEffect, useRef, useState } from 'react';
import { useViewer } from '../../stores/viewer';

/** Small page images already drawn, by file, version and page (kept while the app runs, at most 300). */
const cache = new Map<string, string>();
const keep = (key: string, png: string) => {
  cache.set(key, png);
  if (cache.size > 300) cache.delete(cache.keys().next().value!);
};

/** One thumbnail: drawn only once it scrolls into the strip's view. */
function Thumb({ n, current, root }: { n: number; current: boolean; root: HTMLElement | null }) {
  const caseId = useViewer((s) => s.caseId);
  const source = useViewer((s) => s.source)!;
  const thumbnail = useViewer((s) => s.thumbnail);
  const key = `${caseId}/${source.file_id}/${source.version}/${n}`;
  const [png, setPng] = useState(() => cache.get(key) ?? null);
  const [seen, setSeen] = useState(false);
  const el = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    if (!el.current || !root || png) return;
    const io = new IntersectionObserver((entries) => entries.some((e) => e.isIntersecting) && setSeen(true), {
      root,
      rootMargin: '100px 0px',
    });
    io.observe(el.current);
    return () => io.disconnect();
  }, [root, png]);
  useEffect(() => {
    if (!seen || png || !caseId) return;
    let live = true;
    thumbnail(caseId, source.file_id, source.version, n)
      .then((img) => {
        keep(key, img.png);
        if (live) setPng(img.png);
      })
      .catch(() => undefined);
    return () => {
      live = false;
    };
  }, [seen, png, caseId, source.file_id, source.version, n, key, thumbnail]);
  useEffect(() => {
    if (current) el.current?.scrollIntoView({ block: 'nearest' });
  }, [current]);
  return (
    <li>
      <button
        ref={el}
        type="button"
        className="thumb"
        aria-label={`Go to page ${n}`}
        aria-current={current ? 'page' : undefined}
        onClick={() => useViewer.getState().goto(n)}
      >
        {png ? (
          <img src={`data:image/png;base64,${png}`} alt="" data-testid="thumb-image" />
        ) : (
          <span className="thumb-blank" aria-hidden="true" />
        )}
        <span className="thumb-n" aria-hidden="true">
          {n}
        </span>
      </button>
    </li>
  );
}

/** A strip of page thumbnails beside the page: only those scrolled into view are drawn. */
export function Thumbnails({ count, page }: { count: number; page: number }) {
  const [root, setRoot] = useState<HTMLElement | null>(null);
  return (
    <nav className="thumbs" ref={setRoot} aria-label="Pages">
      <ol>
        {Array.from({ length: count }, (_, i) => (
          <Thumb key={i + 1} n={i + 1} current={i + 1 === page} root={root} />
        ))}
      </ol>
    </nav>
  );
}
