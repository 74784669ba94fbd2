import { useMemo, type ClipboardEvent } from 'react';
import type { PageWord } from '../../../../shared/contract/viewer';
import { joinWords } from '../../lib/viewer-find';

const FONT = 'sans-serif';
let ctx: CanvasRenderingContext2D | null | undefined;

/** Width of `text` at a font size of 1px in the layer's font (measured once per word). */
function widthAt1px(text: string): number {
  if (ctx === undefined) ctx = document.createElement('canvas').getContext('2d');
  if (!ctx) return text.length * 0.5;
  ctx.font = `100px ${FONT}`;
  return ctx.measureText(text).width / 100 || text.length * 0.5;
}

const pct = (v: number) => `${v * 100}%`;

/**
 * The page's words as transparent text laid over the page image, each on its word (from the stored
 * geometry, so OCR'd pages have it too): select and copy like text. Sizes are in container units
 * of the page frame, so the words stay on their places at every zoom without measuring again.
 * Copy puts the selected words on the clipboard as they read (spaces and line breaks).
 */
export function TextLayer({ words, aspect }: { words: PageWord[]; aspect: number }) {
  const stretch = useMemo(() => words.map((w) => w.width / (widthAt1px(w.text) * w.height * aspect)), [words, aspect]);
  const onCopy = (e: ClipboardEvent<HTMLDivElement>) => {
    const sel = globalThis.getSelection?.();
    if (!sel || sel.isCollapsed || sel.rangeCount === 0) return;
    const range = sel.getRangeAt(0);
    const picked: { text: string; y: number; height: number }[] = [];
    for (const span of e.currentTarget.querySelectorAll<HTMLElement>('span[data-i]')) {
      if (!range.intersectsNode(span)) continue;
      const w = words[Number(span.dataset.i)]!;
      const from =
        span.contains(range.startContainer) && range.startContainer.nodeType === Node.TEXT_NODE ? range.startOffset : 0;
      const to =
        span.contains(range.endContainer) && range.endContainer.nodeType === Node.TEXT_NODE
          ? range.endOffset
          : w.text.length;
      const text = w.text.slice(from, to);
      if (text) picked.push({ text, y: w.y, height: w.height });
    }
    if (!picked.length) return;
    e.clipboardData.setData('text/plain', joinWords(picked));
    e.preventDefault();
  };
  return (
    <div className="text-layer" data-testid="text-layer" onCopy={onCopy}>
      {words.map((w, i) => (
        <span
          key={w.start}
          data-i={i}
          style={{
            left: pct(w.x),
            top: pct(w.y),
            fontSize: `${w.height * aspect * 100}cqw`,
            transform: `scaleX(${stretch[i]})`,
          }}
        >
          {w.text}
        </span>
      ))}
    </div>
  );
}
