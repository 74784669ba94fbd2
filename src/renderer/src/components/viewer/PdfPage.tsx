import { useLayoutEffect, useMemo, useRef } from 'react';
import { useViewer } from '../../stores/viewer';
import { rangeBoxes } from '../../lib/viewer-find';
import { TextLayer } from './TextLayer';

/**
 * Scroll `el` into view inside `scroller`: centred when it fits, else its start (left, top) shown
 * with a margin, so a long highlighted line at a high zoom shows where it begins.
 */
export function scrollBoxIntoView(el: HTMLElement, scroller: HTMLElement): void {
  const box = el.getBoundingClientRect();
  const view = scroller.getBoundingClientRect();
  const margin = 24;
  const fitsX = box.width <= view.width - 2 * margin;
  const fitsY = box.height <= view.height - 2 * margin;
  const dx = fitsX ? box.left + box.width / 2 - (view.left + view.width / 2) : box.left - view.left - margin;
  const dy = fitsY ? box.top + box.height / 2 - (view.top + view.height / 2) : box.top - view.top - margin;
  scroller.scrollBy({ left: dx, top: dy, behavior: 'instant' as ScrollBehavior });
}

const pct = (v: number) => `${v * 100}%`;

/** The page image with the cited words' boxes, the found words' boxes and the selectable text layer. */
export function PdfPage() {
  const image = useViewer((s) => s.image)!;
  const zoom = useViewer((s) => s.zoom);
  const words = useViewer((s) =>
    s.words && s.words.page === s.image?.page && s.words.file_id === s.image.file_id ? s.words : null,
  );
  const find = useViewer((s) => s.find);
  const scrollTo = useViewer((s) => s.scrollTo);
  const scrollTick = useViewer((s) => s.scrollTick);
  const frame = useRef<HTMLDivElement>(null);
  const hits = useMemo(() => {
    if (!words || !find.open) return [];
    return find.hits
      .map((h, i) => ({ h, i }))
      .filter(({ h }) => h.page === image.page)
      .flatMap(({ h, i }) =>
        rangeBoxes(words.words, h.start, h.end).map((box, k) => ({
          box,
          key: `${i}-${k}`,
          current: i === find.current,
        })),
      );
  }, [words, find, image.page]);
  const current = hits.find((h) => h.current)?.key;
  const shownPage = useRef(0);
  useLayoutEffect(() => {
    const scroller = frame.current?.closest<HTMLElement>('.viewer-body');
    if (!frame.current || !scroller) return;
    const newPage = shownPage.current !== image.page;
    shownPage.current = image.page;
    // The current found word when stepping through them (if it is on this page), else the first cited box;
    // a page with neither opens at its top.
    const target =
      scrollTo === 'hit'
        ? frame.current.querySelector<HTMLElement>('[data-current="true"]')
        : frame.current.querySelector<HTMLElement>('.cite-box');
    if (target) scrollBoxIntoView(target, scroller);
    else if (newPage) scroller.scrollTo({ top: 0, left: 0 });
  }, [image, scrollTick, scrollTo, current]);
  // Boxes are placed in fractions of the image, so they stay on their words at any size.
  const px = (v: number, of: number) => `${(v / of) * 100}%`;
  return (
    <div
      ref={frame}
      className="page-frame"
      style={{ width: `${zoom * 100}%`, aspectRatio: `${image.width} / ${image.height}` }}
    >
      <img
        className="page-image"
        src={`data:image/png;base64,${image.png}`}
        alt={`Page ${image.page} of ${image.file_name}`}
        draggable={false}
      />
      {image.rects.map((r, i) => (
        <div
          key={i}
          className="cite-box"
          data-testid="cite-box"
          style={{
            left: px(r.x, image.width),
            top: px(r.y, image.height),
            width: px(r.width, image.width),
            height: px(r.height, image.height),
          }}
        />
      ))}
      {hits.map(({ box, key, current: now }) => (
        <div
          key={key}
          className={`hit-box${now ? ' hit-current' : ''}`}
          data-testid="hit-box"
          data-current={now ? 'true' : undefined}
          style={{ left: pct(box.x), top: pct(box.y), width: pct(box.width), height: pct(box.height) }}
        />
      ))}
      {words && <TextLayer words={words.words} aspect={image.height / image.width} />}
    </div>
  );
}
