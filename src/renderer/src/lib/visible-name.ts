/**
 * Characters that reorder or hide what follows them rather than showing: C0 and C1 controls, line
 * and paragraph separators, and the bidi embeddings, overrides, isolates and marks. A file name
 * holding U+202E (right-to-left override) would show "invoice‮fdp.exe" as "invoiceexe.pdf".
 */
const HIDDEN = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

/**
 * A name (of a file, a folder, an attachment) as the documents list shows it: every character of
 * HIDDEN written as an escape, as the CLI prints it (`\u202e`, `\x1b`, `\n`), so the name reads in
 * the order it is stored. Shown inside <bdi>, a name in a right-to-left script keeps its own order
 * without reordering the text around it.
 */
export function visibleName(name: string): string {
  return name.replace(HIDDEN, (c) => {
    if (c === '\n') return '\\n';
    if (c === '\r') return '\\r';
    if (c === '\t') return '\\t';
    const code = c.charCodeAt(0);
    return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
  });
}
