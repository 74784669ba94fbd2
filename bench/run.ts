/**
 * `npm run bench`: runs every benchmark module, writes bench/results.json — an object of named
 * metrics, each {value, unit, note} — and prints a table. Absolute timings on a shared machine
 * are noisy: modules report medians, percentiles and ratios.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { writeJsonAtomic } from '../src/core/util/fs';
import { applyOfflineEnv } from '../src/core/util/offline-env';

export interface Metric {
  value: number;
  unit: string;
  note: string;
}
export type Metrics = Record<string, Metric>;

const here = import.meta.dirname;
export const RESULTS_FILE = path.join(here, 'results.json');

/** Benchmark modules and the function each exports; a module not present yet is reported as skipped. */
const MODULES: { file: string; fn: string; named?: boolean }[] = [
  { file: 'ingest.ts', fn: 'ingestBench' },
  { file: 'parallel-ingest.ts', fn: 'parallelIngestBench' },
  { file: 'index.ts', fn: 'indexBench' },
  { file: 'agent.ts', fn: 'agentBench' },
  { file: 'hostile.ts', fn: 'hostileBench' },
  { file: 'ocr.ts', fn: 'ocrBench' },
  { file: 'formats.ts', fn: 'formatsBench' },
  { file: 'e2e.ts', fn: 'e2eBench' },
  { file: 'scale.ts', fn: 'scaleBench' },
  { file: 'generation.ts', fn: 'generationBench' },
  { file: 'object-store.ts', fn: 'objectStoreBench' },
  // Only when named (`npm run bench million`): tens of minutes and gigabytes of disk.
  { file: 'million.ts', fn: 'millionBench', named: true },
];

/** Merge metrics into bench/results.json (eval:retrieval writes into the same file). */
export async function mergeResults(metrics: Metrics): Promise<Metrics> {
  let previous: Metrics = {};
  if (existsSync(RESULTS_FILE)) {
    try {
      previous = JSON.parse(await readFile(RESULTS_FILE, 'utf8')) as Metrics;
    } catch {
      previous = {};
    }
  }
  const merged = { ...previous, ...metrics };
  await writeJsonAtomic(RESULTS_FILE, merged);
  return merged;
}

export function printTable(metrics: Metrics): void {
  const rows = Object.entries(metrics).map(([k, m]) => [k, formatValue(m.value), m.unit, m.note]);
  const widths = [0, 1, 2].map((i) => Math.max(...rows.map((r) => r[i]!.length), 6));
  for (const r of rows)
    console.log(`${r[0]!.padEnd(widths[0]!)}  ${r[1]!.padStart(widths[1]!)}  ${r[2]!.padEnd(widths[2]!)}  ${r[3]}`);
}

function formatValue(v: number): string {
  if (!Number.isFinite(v)) return String(v);
  return Math.abs(v) >= 100 ? v.toFixed(0) : Math.abs(v) >= 1 ? v.toFixed(2) : v.toPrecision(3);
}

async function main(): Promise<void> {
  // As the app's entries do: the benchmarks' own onnxruntime sessions (the raw reference) start no
  // telemetry and leave no mat-debug-<pid>.log in the temp folder.
  applyOfflineEnv();
  const only = process.argv.slice(2);
  const metrics: Metrics = {};
  for (const { file, fn, named } of MODULES) {
    if ((only.length || named) && !only.some((o) => file.startsWith(o))) continue;
    const full = path.join(here, file);
    if (!existsSync(full)) {
      console.log(`(skipped ${file}: not written yet)`);
      continue;
    }
    const mod = (await import(full)) as Record<string, () => Promise<Metrics>>;
    const run = mod[fn];
    if (typeof run !== 'function') throw new Error(`bench/${file} does not export ${fn}()`);
    console.log(`running ${file} …`);
    Object.assign(metrics, await run());
  }
  metrics['bench.node_version'] = {
    value: Number(process.versions.node.split('.')[0]),
    unit: 'major',
    note: process.version,
  };
  const merged = await mergeResults(metrics);
  printTable(merged);
  console.log(`\nwrote ${path.relative(process.cwd(), RESULTS_FILE)}`);
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(import.meta.filename)) {
  if (process.platform === 'linux' && process.env.MALLOC_ARENA_MAX === undefined) {
    // The engine is measured as the `casefile` command runs it: with two malloc arenas (see
    // bin/casefile.mjs). glibc reads the variable only at a process's start, so the bench starts again with it.
    const again = spawnSync(process.execPath, [...process.execArgv, ...process.argv.slice(1)], {
      stdio: 'inherit',
      env: { ...process.env, MALLOC_ARENA_MAX: '2' },
    });
    process.exit(again.status ?? 1);
  }
  await main();
}
