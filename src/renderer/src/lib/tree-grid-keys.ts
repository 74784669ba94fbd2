/**
 * Keyboard navigation of the document table (the WAI-ARIA treegrid pattern, moving by rows): the
 * table is one Tab stop (the active row, a roving tabindex); Up/Down move, Home/End jump,
 * Right/Left expand/collapse a folder (or an email's attachments) or move to its first child/its
 * parent, Enter opens, Space ticks a document.
 */

/** The row a key press moves to from `from`, or null (see above for the keys). */
export function moveTarget(
  items: HTMLElement[],
  from: HTMLElement,
  key: string,
  setOpen: (key: string, open: boolean) => void,
): HTMLElement | null | undefined {
  const i = items.indexOf(from);
  const expanded = from.getAttribute('aria-expanded');
  switch (key) {
    case 'ArrowDown':
      return items[i + 1] ?? null;
    case 'ArrowUp':
      return items[i - 1] ?? null;
    case 'Home':
      return items[0] ?? null;
    case 'End':
      return items[items.length - 1] ?? null;
    case 'ArrowRight':
      if (expanded === 'false') setOpen(from.dataset.key!, true);
      return expanded === 'true' ? (items[i + 1] ?? null) : null;
    case 'ArrowLeft':
      if (expanded === 'true') {
        setOpen(from.dataset.key!, false);
        return null;
      }
      return items.find((el) => el.dataset.key === from.dataset.parent) ?? null;
    default:
      return undefined;
  }
}
