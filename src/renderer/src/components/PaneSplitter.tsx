import { useRef, type KeyboardEvent, type PointerEvent } from 'react';
import type { SplitRange } from '../lib/pane-layout';

interface Props {
  label: string;
  range: SplitRange;
  /** Which pane it sizes: the one before it (`before`: the documents) or after it (`after`: the viewer). */
  sizes: 'before' | 'after';
  /** A new width for that pane, within the range; `remember` once the move is done. */
  onMove(px: number, remember: boolean): void;
}

/**
 * The handle between two panes: drag it, or focus it and use ←/→ (Shift for bigger steps), Home
 * for the pane's smallest width and End for its largest. Its value is the width of the pane it sizes.
 */
export function PaneSplitter({ label, range, sizes, onMove }: Props) {
  const dragging = useRef(false);
  const last = useRef(range.value);
  const clamp = (px: number) => Math.round(Math.max(range.min, Math.min(range.max, px)));
  const move = (px: number, keep: boolean) => {
    last.current = clamp(px);
    onMove(last.current, keep);
  };
  /** The pane's width with the splitter under the pointer at `x`. */
  const widthAt = (el: HTMLElement, x: number) => {
    const pane = sizes === 'before' ? el.previousElementSibling : el.nextElementSibling;
    const box = pane?.getBoundingClientRect();
    if (!box) return range.value;
    return sizes === 'before' ? x - box.left : box.right - x;
  };
  const onPointerDown = (e: PointerEvent<HTMLDivElement>) => {
    e.preventDefault();
    e.currentTarget.setPointerCapture(e.pointerId);
    e.currentTarget.focus({ preventScroll: true });
    dragging.current = true;
  };
  const onPointerMove = (e: PointerEvent<HTMLDivElement>) => {
    if (dragging.current) move(widthAt(e.currentTarget, e.clientX), false);
  };
  const onPointerUp = () => {
    if (!dragging.current) return;
    dragging.current = false;
    move(last.current, true);
  };
  const onKeyDown = (e: KeyboardEvent<HTMLDivElement>) => {
    const step = e.shiftKey ? 64 : 16;
    // ← moves the handle left: the pane before it narrows, the pane after it widens.
    const grow = sizes === 'before' ? 1 : -1;
    if (e.key === 'ArrowLeft') move(range.value - grow * step, true);
    else if (e.key === 'ArrowRight') move(range.value + grow * step, true);
    else if (e.key === 'Home') move(range.min, true);
    else if (e.key === 'End') move(range.max, true);
    else return;
    e.preventDefault();
  };
  return (
    <div
      className="pane-splitter"
      role="separator"
      aria-orientation="vertical"
      aria-label={label}
      aria-valuenow={range.value}
      aria-valuemin={range.min}
      aria-valuemax={range.max}
      tabIndex={0}
      onPointerDown={onPointerDown}
      onPointerMove={onPointerMove}
      onPointerUp={onPointerUp}
      onPointerCancel={onPointerUp}
      onKeyDown={onKeyDown}
    />
  );
}
