/**
 * OCR speed and memory (`npm run bench ocr`): pages of CUAD contracts drawn at 300 dpi by poppler
 * (pdftoppm), read one at a time by the product's OCR engine (tesseract.js, one worker) and by
 * Debian's native `tesseract` on the same images in the same run, both on one thread, as medians
 * and a ratio (target ≥ 0.5× native per core). Peak memory: the resident size of a process that
 * runs one OCR worker over the pages. Native tesseract missing (apt package tesseract-ocr; .ci/run
 * does not install it: it is for this bench only): its figures are left out with a note.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { OcrEngine } from '../src/core/ocr/tesseract';
import type { Metrics } from './run';

const CUAD = path.resolve(import.meta.dirname, '..', '..', 'shared', 'corpus', 'cuad', 'full_contract_pdf', 'Part_I');
const PAGES: [string, number][] = [
  ['Affiliate_Agreements/LinkPlusCorp_20050802_8-K_EX-10_3240252_EX-10_Affiliate Agreement.pdf', 1],
  ['Affiliate_Agreements/LinkPlusCorp_20050802_8-K_EX-10_3240252_EX-10_Affiliate Agreement.pdf', 4],
  ['Co_Branding/MphaseTechnologiesInc_20030911_10-K_EX-10.15_1560667_EX-10.15_Co-Branding Agreement.pdf', 2],
  ['Co_Branding/PcquoteComInc_19990721_S-1A_EX-10.11_6377149_EX-10.11_Co-Branding Agreement2.pdf', 2],
];

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const seconds = (t0: bigint) => Number(process.hrtime.bigint() - t0) / 1e9;

/** Peak resident memory (MB) of a process that OCRs `images` with one worker. */
function workerPeakMb(images: string[], dir: string): number | null {
  // A script file (not -e: tesseract.js's worker thread inherits the process's options).
  const file = path.join(dir, 'peak.mts');
  writeFileSync(
    file,
    `
    import { readFileSync } from 'node:fs';
    import { OcrEngine } from ${JSON.stringify(path.resolve(import.meta.dirname, '..', 'src', 'core', 'ocr', 'engine.ts'))};
    const engine = new OcrEngine();
    for (const f of ${JSON.stringify(images)}) await engine.recognize(readFileSync(f));
    await engine.dispose();
    console.log(process.resourceUsage().maxRSS);`,
  );
  const res = spawnSync(process.execPath, ['--import', 'tsx', file], { encoding: 'utf8' });
  const kb = Number(res.stdout.trim().split('\n').pop());
  return Number.isFinite(kb) && kb > 0 ? Math.round(kb / 1024) : null;
}

export async function ocrBench(): Promise<Metrics> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'casefile-bench-ocr-'));
  try {
    const images = PAGES.map(([file, page], i) => {
      const prefix = path.join(dir, `p${i}`);
      execFileSync('pdftoppm', [
        '-r',
        '300',
        '-f',
        String(page),
        '-l',
        String(page),
        '-singlefile',
        '-png',
        path.join(CUAD, file),
        prefix,
      ]);
      return `${prefix}.png`;
    });
    const engine = new OcrEngine();
    await engine.recognize(readFileSync(images[0]!)); // worker start-up and model load, not counted
    const product: number[] = [];
    for (const img of images) {
      const t0 = process.hrtime.bigint();
      await engine.recognize(readFileSync(img));
      product.push(seconds(t0));
    }
    await engine.dispose();
    const hasNative = spawnSync('tesseract', ['--version']).status === 0;
    const native: number[] = [];
    if (hasNative) {
      for (const img of images) {
        const t0 = process.hrtime.bigint();
        execFileSync('tesseract', [img, 'stdout', '-l', 'eng', '--oem', '1'], {
          env: { ...process.env, OMP_THREAD_LIMIT: '1' },
          stdio: ['ignore', 'ignore', 'ignore'],
        });
        native.push(seconds(t0));
      }
    }
    const peak = workerPeakMb(images, dir);
    const productRate = 1 / median(product);
    const metrics: Metrics = {
      'ocr.product_pages_per_s': {
        value: productRate,
        unit: 'pages/s',
        note: `tesseract.js 7, one worker, 300 dpi CUAD pages (median of ${images.length})`,
      },
    };
    if (native.length) {
      const nativeRate = 1 / median(native);
      metrics['ocr.native_pages_per_s'] = {
        value: nativeRate,
        unit: 'pages/s',
        note: 'Debian tesseract 5 CLI, OMP_THREAD_LIMIT=1, same images (includes its process start)',
      };
      metrics['ocr.product_vs_native'] = {
        value: productRate / nativeRate,
        unit: 'ratio',
        note: 'target ≥ 0.5 per core',
      };
    } else {
      metrics['ocr.native_pages_per_s'] = {
        value: Number.NaN,
        unit: 'pages/s',
        note: 'native tesseract not installed (apt install tesseract-ocr): not measured',
      };
    }
    if (peak !== null)
      metrics['ocr.worker_peak_rss_mb'] = {
        value: peak,
        unit: 'MB',
        note: `peak RSS of a process OCRing ${images.length} pages with one worker`,
      };
    return metrics;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
