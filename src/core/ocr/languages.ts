/**
 * OCR languages: each is an installed `@tesseract.js-data/<lang>` npm package, read from disk
 * (never from a CDN). Kept apart from the engine so listing them does not load tesseract.js.
 */
import { existsSync, readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

/** `fast`: the integer LSTM model (4.0.0_best_int); `best`: the float model (4.0.0), slower. */
export type OcrQuality = 'fast' | 'best';

/** The folder of an installed language package's data for `quality`, or null when it is not installed. */
export function languageData(lang: string, quality: OcrQuality = 'fast'): string | null {
  if (!/^[a-z_]{3,12}$/.test(lang)) return null;
  // Declared in each function, not once in the module: the app's bundle declares a module-level
  // `require` of its own, and a second one there does not parse.
  const require = createRequire(import.meta.url);
  let pkg: string;
  try {
    pkg = path.dirname(require.resolve(`@tesseract.js-data/${lang}/package.json`));
  } catch {
    return null;
  }
  const dir = path.join(pkg, quality === 'fast' ? '4.0.0_best_int' : '4.0.0');
  return existsSync(path.join(dir, `${lang}.traineddata.gz`)) ? dir : null;
}

/** The codes of the installed OCR languages (e.g. `eng`), sorted. */
export function installedLanguages(): string[] {
  const require = createRequire(import.meta.url);
  let scope: string;
  try {
    scope = path.dirname(path.dirname(require.resolve('@tesseract.js-data/eng/package.json')));
  } catch {
    return [];
  }
  return readdirSync(scope)
    .filter((lang) => languageData(lang) !== null)
    .sort();
}
