import { describe, expect, it } from 'vitest';
import {
  canFold,
  PANE_MIN,
  paneLayout,
  RAIL_WIDTH,
  SPLITTER_WIDTH,
  type PanePrefs,
} from '../../src/renderer/src/lib/pane-layout';

const prefs = (over: Partial<PanePrefs> = {}): PanePrefs => ({
  docsWidth: null,
  docsBesideViewer: null,
  viewerWidth: null,
  folded: { docs: false, chat: false },
  keep: 'chat',
  ...over,
});

/** The pixel widths of the tracks, with `fill` the rest of `width`. */
function tracks(columns: string, width: number): number[] {
  const parts = columns.split(/ (?![^(]*\))/);
  const fixed = parts.filter((p) => p.endsWith('px')).reduce((n, p) => n + Number.parseFloat(p), 0);
  return parts.map((p) => (p.endsWith('px') ? Number.parseFloat(p) : width - fixed));
}

describe('pane layout', () => {
  it('beside the viewer (a 1400 px window) every pane keeps at least its minimum, and the tracks fill the body exactly', () => {
    const width = 1400 - 192;
    const l = paneLayout(width, true, prefs());
    expect([l.docs, l.chat]).toEqual(['open', 'open']);
    const [docs, s1, chat, s2, viewer] = tracks(l.columns, width);
    expect(docs).toBeGreaterThanOrEqual(PANE_MIN.docs);
    expect(chat).toBeGreaterThanOrEqual(PANE_MIN.chat);
    expect(viewer).toBeGreaterThanOrEqual(PANE_MIN.viewer);
    expect([s1, s2]).toEqual([SPLITTER_WIDTH, SPLITTER_WIDTH]);
    expect(docs! + s1! + chat! + s2! + viewer!).toBe(width);
  });

  it('a width dragged beyond the room is held so the chat keeps its minimum; the splitters say their limits', () => {
    const width = 1208;
    const l = paneLayout(width, true, prefs({ docsBesideViewer: 900, viewerWidth: 900 }));
    const [docs, , chat, , viewer] = tracks(l.columns, width);
    expect(chat).toBe(PANE_MIN.chat);
    expect(viewer).toBe(PANE_MIN.viewer);
    expect(docs).toBe(l.docsSplit!.max);
    expect(l.viewerSplit).toEqual({ value: PANE_MIN.viewer, min: PANE_MIN.viewer, max: PANE_MIN.viewer });
  });

  it('too narrow for all three (900 px): the documents fold for now, and the chat instead once the documents are asked for', () => {
    const width = 900 - 192;
    const l = paneLayout(width, true, prefs());
    expect([l.docs, l.chat]).toEqual(['squeezed', 'open']);
    const [rail, chat, , viewer] = tracks(l.columns, width);
    expect(rail).toBe(RAIL_WIDTH);
    expect(chat).toBeGreaterThanOrEqual(PANE_MIN.chat);
    expect(viewer).toBeGreaterThanOrEqual(PANE_MIN.viewer);
    const kept = paneLayout(width, true, prefs({ keep: 'docs' }));
    expect([kept.docs, kept.chat]).toEqual(['open', 'squeezed']);
    const [docs, , rail2, rest] = tracks(kept.columns, width);
    expect([docs! >= PANE_MIN.docs, rail2, rest! >= PANE_MIN.viewer]).toEqual([true, RAIL_WIDTH, true]);
    // Without the viewer both fit again.
    expect(paneLayout(width, false, prefs())).toMatchObject({ docs: 'open', chat: 'open' });
  });

  it('a folded pane is a rail; the last pane open cannot be folded away', () => {
    const l = paneLayout(1000, false, prefs({ folded: { docs: true, chat: false } }));
    expect(l).toMatchObject({ docs: 'folded', chat: 'open', docsSplit: null });
    expect(l.columns).toBe(`${RAIL_WIDTH}px minmax(0, 1fr)`);
    expect(canFold('chat', false, l)).toBe(false);
    expect(canFold('chat', true, l)).toBe(true);
    // Both folded without the viewer: the chat shows.
    expect(paneLayout(1000, false, prefs({ folded: { docs: true, chat: true } })).chat).toBe('open');
  });
});
