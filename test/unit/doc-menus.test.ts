import { describe, expect, it } from 'vitest';
import { SORT_CHOICES, sortText } from '../../src/renderer/src/lib/doc-sort';
import { menuIndex } from '../../src/renderer/src/lib/menu-keys';

describe('the keyboard of a menu', () => {
  it('↓ and ↑ move to the next and previous item, wrapping round; Home and End jump to the ends', () => {
    expect(menuIndex(0, 3, 'ArrowDown')).toBe(1);
    expect(menuIndex(2, 3, 'ArrowDown')).toBe(0);
    expect(menuIndex(0, 3, 'ArrowUp')).toBe(2);
    expect(menuIndex(2, 3, 'ArrowUp')).toBe(1);
    expect(menuIndex(1, 3, 'Home')).toBe(0);
    expect(menuIndex(1, 3, 'End')).toBe(2);
  });

  it('from no item, ↓ goes to the first and ↑ to the last; other keys and an empty menu move nowhere', () => {
    expect(menuIndex(-1, 3, 'ArrowDown')).toBe(0);
    expect(menuIndex(-1, 3, 'ArrowUp')).toBe(2);
    expect(menuIndex(1, 3, 'a')).toBeUndefined();
    expect(menuIndex(1, 3, 'Enter')).toBeUndefined();
    expect(menuIndex(0, 0, 'ArrowDown')).toBeUndefined();
  });
});

describe('the sort menu of the documents list', () => {
  it('offers every column both ways, in words that say which end comes first', () => {
    expect(SORT_CHOICES.map(sortText)).toEqual([
      'Name, A to Z',
      'Name, Z to A',
      'Title, A to Z',
      'Title, Z to A',
      'Date, oldest first',
      'Date, newest first',
      'Pages, fewest first',
      'Pages, most first',
      'Type, A to Z',
      'Type, Z to A',
      'Status, needs attention first',
      'Status, not finished first',
    ]);
  });
});
