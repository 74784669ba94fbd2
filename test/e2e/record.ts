/**
 * Record what a part of the page shows at every DOM change, from the moment this is called. A
 * transient state (a toast, a line of a progress panel, an answer half written) is then checked
 * after the fact: a poll can miss a state that lasts less than its interval on a fast machine, or
 * wait past its end on a loaded one; a MutationObserver sees every rendered state.
 */
import type { Page } from '@playwright/test';

let next = 0;

/** Returns a function that reads the distinct texts seen so far in elements matching `selector`. */
export async function recordTexts(page: Page, selector: string): Promise<() => Promise<string[]>> {
  const slot = `__recorded${next++}`;
  await page.evaluate(
    ([sel, name]) => {
      type Node = { textContent: string | null };
      const g = globalThis as unknown as Record<string, string[]> & {
        document: { body: object; querySelectorAll(s: string): ArrayLike<Node> };
        MutationObserver: new (cb: () => void) => { observe(n: object, o: object): void };
      };
      const seen: string[] = [];
      g[name] = seen;
      const look = () => {
        for (const el of Array.from(g.document.querySelectorAll(sel))) {
          const text = (el.textContent ?? '').replace(/\s+/g, ' ').trim();
          if (text && !seen.includes(text)) seen.push(text);
        }
      };
      look();
      new g.MutationObserver(look).observe(g.document.body, {
        subtree: true,
        childList: true,
        characterData: true,
        attributes: true,
      });
    },
    [selector, slot] as const,
  );
  return () => page.evaluate((name) => (globalThis as unknown as Record<string, string[]>)[name]!.slice(), slot);
}
