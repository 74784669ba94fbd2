import type { Page } from '@playwright/test';

/**
 * What sticks out of the window at the right, or is cut off: every visible element's box, clipped
 * by the ancestors that clip it, must end inside the viewport; a control (button, field, menu)
 * must not be cut at the side by an ancestor that clips or scrolls sideways (a pane that scrolls
 * down may hold it below the fold: that is not a cut).
 */
export async function overflowing(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    type Box = { left: number; right: number };
    const g = globalThis as unknown as {
      innerWidth: number;
      document: { querySelectorAll(s: string): ArrayLike<HTMLElement>; documentElement: { scrollWidth: number } };
      getComputedStyle(el: Element): CSSStyleDeclaration;
    };
    const width = g.innerWidth;
    const out: string[] = [];
    if (g.document.documentElement.scrollWidth > width + 1)
      out.push(`the page scrolls sideways (${g.document.documentElement.scrollWidth} px wide)`);
    const name = (el: Element) =>
      `${el.tagName.toLowerCase()}${el.className && typeof el.className === 'string' ? `.${el.className.trim().split(/\s+/).join('.')}` : ''} “${(el.textContent ?? '').trim().slice(0, 40)}”`;
    for (const el of Array.from(g.document.querySelectorAll('body *'))) {
      const r = el.getBoundingClientRect();
      const style = g.getComputedStyle(el);
      if (r.width === 0 || r.height === 0 || style.visibility === 'hidden' || style.display === 'contents') continue;
      let box: Box = { left: r.left, right: r.right };
      let cut = false;
      for (let a = el.parentElement; a && a.tagName !== 'BODY'; a = a.parentElement) {
        const ox = g.getComputedStyle(a).overflowX;
        if (ox === 'visible') continue;
        const ar = a.getBoundingClientRect();
        if (r.right > ar.right + 1 || r.left < ar.left - 1) cut = true;
        box = { left: Math.max(box.left, ar.left), right: Math.min(box.right, ar.right) };
      }
      if (box.right <= box.left) continue; // scrolled or clipped out of sight entirely
      if (box.right > width + 1) out.push(`${name(el)} ends at ${Math.round(box.right)} px`);
      const control = /^(BUTTON|SELECT|INPUT|TEXTAREA|A)$/.test(el.tagName);
      if (control && cut) out.push(`${name(el)} is cut off at the side`);
      // Nor may it run out of its pane (under the next one).
      const pane = el.closest('section.pane, nav, header, .settings');
      if (
        control &&
        pane &&
        (r.right > pane.getBoundingClientRect().right + 1 || r.left < pane.getBoundingClientRect().left - 1)
      )
        out.push(`${name(el)} runs out of its pane`);
    }
    return out;
  });
}
