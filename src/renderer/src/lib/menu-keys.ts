/**
 * Keyboard of a menu (the WAI-ARIA menu button pattern): ↓/↑ move to the next/previous item,
 * wrapping round, Home/End to the first/last. Pure, so the menus share it and it is tested alone.
 */

/** The item a key moves to from item `current` of `count`, or undefined for a key that does not move. */
export function menuIndex(current: number, count: number, key: string): number | undefined {
  if (count <= 0) return undefined;
  switch (key) {
    case 'ArrowDown':
      return current < 0 ? 0 : (current + 1) % count;
    case 'ArrowUp':
      return current < 0 ? count - 1 : (current - 1 + count) % count;
    case 'Home':
      return 0;
    case 'End':
      return count - 1;
    default:
      return undefined;
  }
}
