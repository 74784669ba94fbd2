/**
 * The DOCX source view: mammoth's HTML rebuilt from an allow-list (hostile markup comes out inert)
 * and a cited span of the ingest text highlighted on the rendered elements — heading, list, table.
 * @xmldom/xmldom (mammoth's own XML parser) stands in for the browser's DOMParser here.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { DOMParser } from '@xmldom/xmldom';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadDocx } from '../../src/core/reader/loaders';
import {
  alignDocx,
  highlightDocxSpan,
  markDocx,
  sanitizeDocxHtml,
  type DomLike,
  type SafeElement,
  type SafeNode,
} from '../../src/renderer/src/lib/docx-html';
import { repoRoot } from '../helpers/home';

const BAA = path.resolve(
  repoRoot,
  '..',
  'shared',
  'corpus',
  'open-agreements/templates/common-paper-cc-by-4.0/common-paper-business-associate-agreement/template.docx',
);

function parse(html: string): SafeNode[] {
  const doc = new DOMParser({ errorHandler: () => undefined }).parseFromString(
    `<!DOCTYPE html><html><body>${html}</body></html>`,
    'text/html',
  );
  return sanitizeDocxHtml(doc.getElementsByTagName('body')[0] as unknown as DomLike);
}

const squash = (s: string) => s.replace(/\s+/g, ' ').trim();

/** Every element with its ancestors' tags, for "where did the marks land" checks. */
function walk(
  nodes: SafeNode[],
  visit: (el: SafeElement, ancestors: string[]) => void,
  ancestors: string[] = [],
): void {
  for (const n of nodes) {
    if (n.kind !== 'el') continue;
    visit(n, ancestors);
    walk(n.children, visit, [...ancestors, n.tag]);
  }
}

function tagsOf(nodes: SafeNode[]): Set<string> {
  const tags = new Set<string>();
  walk(nodes, (el) => tags.add(el.tag));
  return tags;
}

function markAncestors(nodes: SafeNode[]): string[][] {
  const out: string[][] = [];
  walk(nodes, (el, anc) => {
    if (el.tag === 'mark') out.push(anc);
  });
  return out;
}

/** The BAA's ingest text and sanitised HTML, read once for both groups below. */
let baaRead: Promise<{ text: string; nodes: SafeNode[] }> | undefined;
const baa = () =>
  (baaRead ??= loadDocx(new Uint8Array(readFileSync(BAA))).then((doc) => ({
    text: doc.text,
    nodes: parse(doc.html!),
  })));

describe('DOCX view: highlight a cited span in the rendered document', () => {
  let text = '';
  let nodes: SafeNode[] = [];
  beforeAll(async () => {
    ({ text, nodes } = await baa());
  });

  const cite = (phrase: string, nth = 0) => {
    let at = -1;
    for (let i = 0; i <= nth; i++) at = text.indexOf(phrase, at + 1);
    expect(at, `"${phrase}" is in the ingest text`).toBeGreaterThanOrEqual(0);
    return { start: at, end: at + phrase.length };
  };

  it('keeps the structure: headings, nested lists, tables, bold', () => {
    const tags = tagsOf(nodes);
    for (const t of ['h1', 'h2', 'ol', 'li', 'table', 'tr', 'td', 'p', 'strong']) expect(tags, t).toContain(t);
  });

  it('a heading span: one mark inside the h1, its text the cited words', () => {
    const { start, end } = cite('Company Obligations');
    const h = highlightDocxSpan(nodes, text, start, end)!;
    expect(h).not.toBeNull();
    expect(h.marks).toBe(1);
    expect(h.markedText).toBe('Company Obligations');
    expect(markAncestors(h.nodes)[0]).toContain('h1');
  });

  it('a span inside a list item that crosses bold text: marks in the li, the same words', () => {
    const { start, end } = cite('Safeguards.  Provider will implement appropriate administrative');
    const h = highlightDocxSpan(nodes, text, start, end)!;
    expect(squash(h.markedText)).toBe(squash(text.slice(start, end)));
    expect(h.marks).toBe(3); // "Safeguards.  ", <strong>Provider</strong>, " will implement …"
    for (const anc of markAncestors(h.nodes)) expect(anc).toContain('li');
  });

  it('a table cell span: the mark sits in a td', () => {
    const { start, end } = cite('This BAA is incorporated into the');
    const h = highlightDocxSpan(nodes, text, start, end)!;
    expect(h.markedText).toBe('This BAA is incorporated into the');
    expect(markAncestors(h.nodes)[0]).toEqual(expect.arrayContaining(['table', 'tr', 'td', 'p']));
  });

  it('a span across several paragraphs: every cited word marked, none outside', () => {
    const a = cite('Company Obligations').start;
    const end = text.indexOf('\n\n', text.indexOf('\n\n', a) + 2) + 2 + 40;
    const h = highlightDocxSpan(nodes, text, a, end)!;
    expect(h.marks).toBeGreaterThan(1);
    expect(squash(h.markedText).replace(/ /g, '')).toBe(text.slice(a, end).replace(/\s+/g, ''));
  });

  it('an empty span renders the document without marks; a blank span or unmatched text gives null (plain-text fallback)', () => {
    expect(highlightDocxSpan(nodes, text, 10, 10)!.marks).toBe(0);
    const gap = text.indexOf('\n\n');
    expect(highlightDocxSpan(nodes, text, gap, gap + 2)).toBeNull();
    // HTML of another document: nothing can be placed with certainty.
    expect(highlightDocxSpan(parse('<p>Something else entirely.</p>'), text, 0, 40)).toBeNull();
  });

  it('HTML with extra content (footnotes, a paragraph the text lacks) still maps by the surrounding paragraphs', () => {
    const doc = 'Title\n\nFirst clause applies.\n\nSecond clause applies.';
    const html =
      '<h1>Title</h1><p>Inserted banner</p><p>First clause<sup><a href="#footnote-1" id="footnote-ref-1">[1]</a></sup> applies.</p>' +
      '<p>Second clause applies.</p><ol><li id="footnote-1"><p>A note. <a href="#footnote-ref-1">↑</a></p></li></ol>';
    const start = doc.indexOf('clause applies.');
    const h = highlightDocxSpan(parse(html), doc, start, start + 'clause applies.'.length)!;
    expect(h).not.toBeNull();
    expect(squash(h.markedText)).toBe('clause applies.');
    // Repeated text: "clause applies." occurs twice; the second citation lands on the second paragraph.
    const second = doc.lastIndexOf('clause applies.');
    const h2 = highlightDocxSpan(parse(html), doc, second, second + 15)!;
    expect(markAncestors(h2.nodes)).toHaveLength(1);
    const secondP = h2.nodes.filter((n): n is SafeElement => n.kind === 'el' && n.tag === 'p')[2]!;
    expect(secondP.children.some((c) => c.kind === 'el' && c.tag === 'mark')).toBe(true);
  });
});

describe('DOCX view: found words marked with the cited span (markDocx)', () => {
  let text = '';
  let nodes: SafeNode[] = [];
  beforeAll(async () => {
    ({ text, nodes } = await baa());
  });

  /** The marks of the tree in order, as kind (and the kind of the mark around it, if any). */
  function marksIn(list: SafeNode[], outer?: string): { kind: string; outer?: string; text: string }[] {
    return list.flatMap((n) => {
      if (n.kind === 'text') return [];
      if (n.tag !== 'mark') return marksIn(n.children, outer);
      const own = n.children.map((c) => (c.kind === 'text' ? c.text : '')).join('');
      return [{ kind: n.mark!, ...(outer ? { outer } : {}), text: own }, ...marksIn(n.children, n.mark)];
    });
  }

  it('markDocx – every occurrence of a word marked in place, the current one told apart, the cited span too', () => {
    const hits = [...text.matchAll(/Provider/g)].map((m) => ({ start: m.index, end: m.index + 8 }));
    expect(hits.length).toBeGreaterThan(5);
    const cite = text.indexOf('Safeguards.  Provider will implement appropriate administrative');
    const al = alignDocx(nodes, text);
    const { nodes: out, marked } = markDocx(al, [
      { start: cite, end: cite + 64, mark: 'cite' },
      ...hits.map((h, i) => ({ ...h, mark: i === 2 ? ('current' as const) : ('hit' as const) })),
    ]);
    expect(marked.every((m) => m !== null)).toBe(true);
    expect(marked.slice(1)).toEqual(hits.map(() => 'Provider'));
    const found = marksIn(out).filter((m) => m.kind !== 'cite');
    expect(found.map((m) => m.text)).toEqual(hits.map(() => 'Provider'));
    expect(found.filter((m) => m.kind === 'current')).toHaveLength(1);
    expect(found.findIndex((m) => m.kind === 'current')).toBe(2);
    // The "Provider" of the cited words is marked inside the cite mark.
    const inCite = hits.findIndex((h) => h.start >= cite && h.end <= cite + 64);
    expect(found[inCite]).toMatchObject({ outer: 'cite', text: 'Provider' });
    expect(squash(marked[0]!)).toBe(squash(text.slice(cite, cite + 64)));
  });

  it('markDocx – a range that cannot be placed is left unmarked (null), the others still marked', () => {
    const doc = 'Title\n\nFirst clause applies.';
    const al = alignDocx(parse('<h1>Title</h1><p>First clause applies.</p>'), doc);
    const { marked, nodes: out } = markDocx(al, [
      { start: 5, end: 7, mark: 'hit' }, // blank space only
      { start: doc.indexOf('clause'), end: doc.indexOf('clause') + 6, mark: 'current' },
    ]);
    expect(marked).toEqual([null, 'clause']);
    expect(marksIn(out)).toEqual([{ kind: 'current', text: 'clause' }]);
  });
});

describe('DOCX view: hostile HTML comes out inert', () => {
  const hostile =
    '<p onclick="alert(1)" style="color:red" class="x" id="y">Hi<script>alert("s")</script>' +
    '<img src=x onerror=alert(2)><iframe src="javascript:alert(3)"></iframe><style>p{display:none}</style>' +
    '<a href="javascript:alert(4)" onmouseover="alert(5)">link</a></p>' +
    '<div><object data="evil.swf"></object><svg><script>alert(6)</script></svg><b>bold</b></div>' +
    '<table><tr><td colspan="2" rowspan="x" style="x" onclick="alert(7)">cell</td></tr></table>' +
    '<form action="https://evil"><input name="q" value="v"><button>Go</button></form><!-- comment --><mark>m</mark>';

  it('keeps only allow-listed elements and colspan/rowspan; drops scripts, handlers, frames, styles, links', () => {
    const nodes = parse(hostile);
    const json = JSON.stringify(nodes);
    for (const bad of [
      'alert',
      'script',
      'iframe',
      'onerror',
      'onclick',
      'javascript',
      'style',
      'display',
      'evil',
      'object',
      'svg',
      'comment',
      'href',
      'class',
    ]) {
      expect(json, bad).not.toContain(bad);
    }
    const allowed = new Set([
      'p',
      'h1',
      'h2',
      'h3',
      'h4',
      'h5',
      'h6',
      'ul',
      'ol',
      'li',
      'table',
      'thead',
      'tbody',
      'tr',
      'td',
      'th',
      'strong',
      'em',
      'b',
      'i',
      'u',
      'sup',
      'sub',
      'br',
      'a',
      'span',
    ]);
    walk(nodes, (el) => {
      expect(allowed, el.tag).toContain(el.tag);
      expect(
        Object.keys(el)
          .sort()
          .filter((k) => !['kind', 'tag', 'children', 'colSpan', 'rowSpan', 'note', 'placeholder'].includes(k)),
      ).toEqual([]);
    });
    // The text survives; the image is a placeholder; the cell keeps its valid colspan only.
    expect(json).toContain('Hi');
    expect(json).toContain('link');
    expect(json).toContain('bold');
    expect(json).toContain('[image]');
    let cell: SafeElement | undefined;
    walk(nodes, (el) => {
      if (el.tag === 'td') cell = el;
    });
    expect(cell).toMatchObject({ colSpan: 2, children: [{ kind: 'text', text: 'cell' }] });
    expect(cell!.rowSpan).toBeUndefined();
  });
});
