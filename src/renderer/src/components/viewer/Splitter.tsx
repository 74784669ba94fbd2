import { useRef, type KeyboardEvent, type PointerEvent } from 'react';
import { useViewer } from '../../stores/viewer';

/** The viewer's width from a pointer at `x`: what is right of it in the workspace, never under half the window. */
function widthAt(body: HTMLElement, x: number): number {
  const right = body.getBoundingClientRect().right;
  return Math.max(window.innerWidth / 2, right - x);
}

/**
 * The handle between the chat and the viewer: drag it (or focus it and use ←/→) to give the viewer
 * more or less room; the width is remembered. The viewer keeps at least half the window.
 */
export function ViewerSplitter() {
  const width = useViewer((s) => s.width);
  const setWidth = useViewer((s) => s.setWidth);
  const dragging = useRef(false);
  const body = (el: Element) => el.parentElement as HTMLElement;
  const current = (el: HTMLElement) =>
    body(el).querySelector('.pane-viewer')?.getBoundingClientRect().width ?? window.innerWidth / 2;
  const onPointerDown = (e: PointerEvent<HTMLDivElement>) => {
    e.preventDefault();
    e.currentTarget.setPointerCapture(e.pointerId);
    dragging.current = true;
  };
  const onPointerMove = (e: PointerEvent<HTMLDivElement>) => {
    if (dragging.current) setWidth(widthAt(body(e.currentTarget), e.clientX), false);
  };
  const onPointerUp = (e: PointerEvent<HTMLDivElement>) => {
    if (!dragging.current) return;
    dragging.current = false;
    setWidth(current(e.currentTarget), true);
  };
  const onKeyDown = (e: KeyboardEvent<HTMLDivElement>) => {
    const step = e.shiftKey ? 96 : 32;
    const now = current(e.currentTarget);
    if (e.key === 'ArrowLeft') setWidth(now + step, true);
    else if (e.key === 'ArrowRight') setWidth(Math.max(window.innerWidth / 2, now - step), true);
    else return;
    e.preventDefault();
  };
  return (
    <div
      className="viewer-splitter"
      role="separator"
      aria-orientation="vertical"
      aria-label="Resize the source viewer"
      aria-valuenow={Math.round(width ?? window.innerWidth / 2)}
      aria-valuemin={Math.round(window.innerWidth / 2)}
      aria-valuemax={window.innerWidth}
      tabIndex={0}
      onPointerDown={onPointerDown}
      onPointerMove={onPointerMove}
      onPointerUp={onPointerUp}
      onPointerCancel={onPointerUp}
      onKeyDown={onKeyDown}
    />
  );
}
