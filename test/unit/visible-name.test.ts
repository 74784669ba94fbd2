import { describe, expect, it } from 'vitest';
import { visibleName } from '../../src/renderer/src/lib/visible-name';

describe('file names in the documents list', () => {
  it('a bidi override, isolate or mark is shown as an escape, so the name reads in its stored order', () => {
    // Shown live, "invoice\u202Efdp.exe" reads "invoiceexe.pdf".
    expect(visibleName('invoice\u202Efdp.exe')).toBe('invoice\\u202efdp.exe');
    expect(visibleName('a\u2066b\u2069c\u200Ed\u200Fe\u061Cf\u202Ag')).toBe(
      'a\\u2066b\\u2069c\\u200ed\\u200fe\\u061cf\\u202ag',
    );
    // Controls as the CLI prints them.
    expect(visibleName('two\nlines\x1b[31m.txt')).toBe('two\\nlines\\x1b[31m.txt');
    // Names in right-to-left scripts and ordinary names are shown as they are.
    expect(visibleName('חוזה שכירות.pdf')).toBe('חוזה שכירות.pdf');
    expect(visibleName('Smith v. Jones – Exhibit 3.pdf')).toBe('Smith v. Jones – Exhibit 3.pdf');
  });
});
