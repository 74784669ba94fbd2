import { describe, expect, it } from 'vitest';
import { looksLikeWord, ocrIsBetter, weakTextLayer } from '../../src/core/reader/text-quality';

describe('text layer quality (which pages OCR reads again)', () => {
  it('words, names, abbreviations and other scripts read as words; consonant runs and case flips do not', () => {
    for (const w of ['Agreement', 'party’s', '(the', 'non-compete', 'LLC', 'Mr.', 'Ψήφισμα', 'договор', 'Straße'])
      expect(looksLikeWord(w), w).toBe(true);
    for (const w of ['Qxzrt', 'aGreEment', 'Ɨǻǿ#', 'ttbbnn']) expect(looksLikeWord(w), w).toBe(false);
  });

  it('a typed page is kept; a stamp on a scan, a layer of garbage or of unmapped glyphs is not', () => {
    const typed =
      'Either party may terminate this Agreement for convenience upon sixty (60) days’ prior written notice to the other party.';
    expect(weakTextLayer(typed, true)).toBeNull();
    // Tables of codes, dates and addresses are neither words nor garbage.
    expect(
      weakTextLayer(
        'Domain Name Expiration hartco.com 18-Jun-2019 AFI tmorten.com 07-Sep-2019 US 14/760,060 9-Jul-15 AU 2 Owner date',
        false,
      ),
    ).toBeNull();
    expect(weakTextLayer('Page 3 of 12', true)).toBe('sparse');
    expect(weakTextLayer('Page 3 of 12', false)).toBeNull();
    expect(weakTextLayer('Qxzrt wrtpl fghjk mnbvc xzlkj ppqrs tttv bcdfg hjklm', true)).toBe('garbage');
    expect(
      weakTextLayer(
        '\uE001\uE002\uE003 \uE004\uE005\uE006\uE007 \uE008\uE009\uE00A\uE00B\uE00C\uE00D\uE00E\uE00F\uE010\uE011\uE012\uE013\uE014\uE015',
        false,
      ),
    ).toBe('garbage');
  });

  it('OCR replaces a layer only when it reads clearly better', () => {
    expect(ocrIsBetter('Either party may terminate this Agreement', 'Qxzrt wrtpl fghjk')).toBe(true);
    expect(ocrIsBetter('Either party may terminate', 'Either party may terminate')).toBe(false);
    expect(ocrIsBetter('', 'Page 3')).toBe(false);
  });
});
