/**
 * Hostile-files benchmark (part of `npm run bench`): the hostile set of the tests (bombs of each
 * kind, page-tree and image bombs, broken and odd files, links, a thousand tiny files, good files)
 * ingested in one batch by the real CLI — peak resident set of the largest process of the run
 * (the app or one of its readers) and wall time; then a case whose app was killed three times
 * while a reader worked on a hidden bomb: time from the next start to its first good file indexed;
 * then files that expand: one archive of 9,999 files read whole (peak memory, time, the pace of
 * recording files at its start and at its end, and `files --json` on the case it makes), the
 * fan-out zip (three levels of 200 records pointing at one inner zip), an email of 1,000
 * attachments; and `casefile watch` on a folder whose links loop (memory, time, Ctrl+C). */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Engine } from '../src/core/engine';
import { CaseStore } from '../src/core/documents/case-store';
import { bombPdf, fanOutZip, manyAttachmentsEmail, manyFilesZip, writeHostileSet } from '../test/fixtures/hostile';
import { multiPagePdf } from '../test/fixtures/pdfs';
import { runMeasured } from '../test/helpers/measured';
import { largestDescendantRss } from '../test/helpers/proc';
import type { Metrics } from './run';

const CORPUS = path.resolve(import.meta.dirname, '..', '..', 'shared', 'corpus');
const BIN = path.resolve(import.meta.dirname, '..', 'bin', 'casefile.mjs');

export async function hostileBench(): Promise<Metrics> {
  const root = mkdtempSync(path.join(os.tmpdir(), 'casefile-bench-hostile-'));
  const metrics: Metrics = {};
  try {
    // 1. One batch of hostile files.
    const drop = path.join(root, 'drop');
    // The 9,999-file archive and the 1,000-attachment email are measured on their own (3., 5.), so this batch stays comparable with earlier runs.
    const set = await writeHostileSet(drop, CORPUS, { tinyFiles: 1000, manyEntries: 0, manyAttachments: 0 });
    const home = path.join(root, 'home');
    const { id } = JSON.parse((await runMeasured(home, ['cases', 'create', 'Hostile', '--json'])).stdout) as {
      id: string;
    };
    const started = Date.now();
    const run = await runMeasured(home, ['ingest', id, drop, '--json']);
    if (run.code !== 0) throw new Error(`hostile ingest failed: ${run.stderr.slice(-500)}`);
    metrics['hostile.batch.peak_rss'] = {
      value: run.peakRssMb,
      unit: 'MiB',
      note: `largest process (app or reader) over one batch of ${set.count} files incl. a 4.7 GB flate bomb; target <= 1536`,
    };
    metrics['hostile.batch.seconds'] = {
      value: (Date.now() - started) / 1000,
      unit: 's',
      note: `${set.count} files, CLI start-up included, keyword-only case`,
    };

    // 2. A case whose app was killed three times (as the system would) while a reader worked on a
    // hidden bomb: not the file's doing, so the next run reads it again, beside the good files.
    const pdrop = path.join(root, 'pdrop');
    mkdirSync(pdrop, { recursive: true });
    writeFileSync(path.join(pdrop, 'a-poison.pdf'), bombPdf(true));
    const phome = path.join(root, 'phome');
    const pcase = (
      JSON.parse((await runMeasured(phome, ['cases', 'create', 'Poisoned', '--json'])).stdout) as { id: string }
    ).id;
    for (let kill = 1; kill <= 3; kill++) {
      const child = spawn(process.execPath, [BIN, '--home', phome, 'ingest', pcase, pdrop, '--json'], {
        stdio: 'ignore',
        env: { ...process.env, CASEFILE_HOME: '', CASEFILE_PARSE_MEMORY_MB: '3000' },
      });
      const exited = new Promise<void>((r) => child.on('exit', () => r()));
      while (largestDescendantRss(child.pid!) < 600 * 1024 * 1024 && child.exitCode === null)
        await new Promise((r) => setTimeout(r, 10));
      child.kill('SIGKILL');
      await exited;
    }
    for (let i = 0; i < 5; i++)
      writeFileSync(path.join(pdrop, `b-good-${i}.pdf`), await multiPagePdf(3, 10, `good${i}`));
    const engine = await Engine.open({ home: phome });
    try {
      const t0 = performance.now();
      let first = -1;
      const off = engine.events.on('ingest.file', (e) => {
        if (first < 0 && e.status === 'indexed') first = performance.now() - t0;
      });
      await engine.router.call('ingest.start', { case_id: pcase, paths: [pdrop] });
      off();
      metrics['hostile.poisoned.first_good_ms'] = {
        value: Math.round(first),
        unit: 'ms',
        note: 'case whose app was killed 3 times while a reader worked on a hidden 4.7 GB bomb: next ingest start to first good file indexed (the bomb is read again, beside them)',
      };
    } finally {
      await engine.close();
    }
    Object.assign(metrics, await archiveBench(root));
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
  return metrics;
}

/** 3. One archive of 9,999 files, read whole; 4. the fan-out zip; 5. an email of 1,000 attachments; 6. a followed folder with a symlink loop. */
async function archiveBench(root: string): Promise<Metrics> {
  const metrics: Metrics = {};
  const ingestOne = async (name: string, bytes: Buffer) => {
    const drop = path.join(root, `drop-${name}`);
    mkdirSync(drop, { recursive: true });
    writeFileSync(path.join(drop, name), bytes);
    const home = path.join(root, `home-${name}`);
    const { id } = JSON.parse((await runMeasured(home, ['cases', 'create', name, '--json'])).stdout) as { id: string };
    const started = Date.now();
    const run = await runMeasured(home, ['ingest', id, drop, '--json'], { timeoutMs: 3 * 3600_000 });
    if (run.code !== 0) throw new Error(`ingest of ${name} failed: ${run.stderr.slice(-500)}`);
    return { home, id, run, seconds: (Date.now() - started) / 1000 };
  };

  const many = await ingestOne('many-files.zip', manyFilesZip(9_999));
  metrics['hostile.many_files.peak_rss'] = {
    value: many.run.peakRssMb,
    unit: 'MiB',
    note: 'one ZIP of 9,999 small text files, every one read: largest process (app or reader)',
  };
  metrics['hostile.many_files.seconds'] = {
    value: many.seconds,
    unit: 's',
    note: '9,999 files from one ZIP, CLI start-up included, keyword-only case',
  };
  // The pace of recording files: the time between files finished, over the first 500 and the last 500.
  const caseDir = path.join(many.home, 'cases', many.id);
  const done = (await new CaseStore(caseDir).readManifest()).files
    .filter((f) => f.parent)
    .map((f) => Date.parse(f.versions.at(-1)!.ingested_at))
    .sort((a, b) => a - b);
  const pace = (from: number, to: number) => (done[to]! - done[from]!) / (to - from);
  if (done.length > 1000) {
    metrics['hostile.many_files.first_500_ms_per_file'] = {
      value: pace(0, 499),
      unit: 'ms',
      note: 'between files finished, files 1-500 of the 9,999',
    };
    metrics['hostile.many_files.last_500_ms_per_file'] = {
      value: pace(done.length - 500, done.length - 1),
      unit: 'ms',
      note: 'between files finished, the last 500 of the 9,999 (compare with the first 500: what a file costs late in a large drop)',
    };
  }
  const t0 = Date.now();
  const list = await runMeasured(many.home, ['files', many.id, '--json']);
  if (list.code !== 0) throw new Error(`files --json failed: ${list.stderr.slice(-500)}`);
  metrics['hostile.many_files.files_json_seconds'] = {
    value: (Date.now() - t0) / 1000,
    unit: 's',
    note: '`casefile files --json` on the case of 10,000 files, CLI start-up included',
  };

  const fan = await ingestOne('fan-out.zip', fanOutZip(3, 200));
  const files = (JSON.parse(fan.run.stdout) as { results: unknown[] }).results.length;
  metrics['hostile.fan_out.seconds'] = {
    value: fan.seconds,
    unit: 's',
    note: `fan-out zip (3 levels of 200 records pointing at one inner zip): refused at the top; ${files} ${files === 1 ? 'file' : 'files'} in the case`,
  };
  metrics['hostile.fan_out.peak_rss'] = { value: fan.run.peakRssMb, unit: 'MiB', note: 'fan-out zip: largest process' };

  const mail = await ingestOne('thousand-attachments.eml', await manyAttachmentsEmail(1000));
  metrics['hostile.attachments.peak_rss'] = {
    value: mail.run.peakRssMb,
    unit: 'MiB',
    note: 'one email of 1,000 small text attachments, every one read: largest process',
  };
  metrics['hostile.attachments.seconds'] = {
    value: mail.seconds,
    unit: 's',
    note: '1,000 attachments of one email, CLI start-up included, keyword-only case',
  };

  Object.assign(metrics, await loopBench(root));
  return metrics;
}

/**
 * `casefile watch` on a folder whose links loop (L/self → ., L/sub/back → ..): the largest process
 * until it is up to date, the time to get there, and the time Ctrl+C takes to end it.
 */
async function loopBench(root: string): Promise<Metrics> {
  const home = path.join(root, 'home-loop');
  const folder = path.join(root, 'L');
  mkdirSync(path.join(folder, 'sub'), { recursive: true });
  for (let i = 0; i < 20; i++)
    writeFileSync(
      path.join(folder, i % 2 ? 'sub' : '', `memo-${i}.txt`),
      `Memo ${i} of the site visit on ${i + 1} July 2022.\n`,
    );
  symlinkSync('.', path.join(folder, 'self'));
  symlinkSync('..', path.join(folder, 'sub', 'back'));
  if ((await runMeasured(home, ['cases', 'create', 'Loop'])).code !== 0)
    throw new Error('could not create the loop case');
  const started = Date.now();
  const child = spawn(process.execPath, [BIN, '--home', home, 'watch', 'Loop', folder], {
    stdio: ['ignore', 'ignore', 'pipe'],
    env: { ...process.env, CASEFILE_HOME: '' },
  });
  let err = '';
  let peak = 0;
  // The bench's only child process now is the command (and its readers under it).
  const sample = setInterval(() => (peak = Math.max(peak, largestDescendantRss(process.pid))), 100);
  const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
  try {
    await new Promise<void>((resolve, reject) => {
      child.stderr!.on('data', (d: Buffer) => {
        err += d.toString();
        if (err.includes('Up to date')) resolve();
      });
      child.on('exit', () => reject(new Error(`casefile watch ended before it was up to date: ${err.slice(-500)}`)));
      setTimeout(
        () => reject(new Error('casefile watch on a symlink loop was not up to date within 10 minutes')),
        600_000,
      ).unref();
    });
  } finally {
    clearInterval(sample);
  }
  const upToDate = (Date.now() - started) / 1000;
  const stopAt = Date.now();
  child.kill('SIGINT');
  if ((await exited) !== 0) throw new Error(`casefile watch did not end cleanly on Ctrl+C: ${err.slice(-500)}`);
  return {
    'hostile.loop.seconds': {
      value: upToDate,
      unit: 's',
      note: 'casefile watch on a folder of 20 files whose links loop: start to "Up to date", CLI start-up included',
    },
    'hostile.loop.peak_rss': {
      value: Math.round(peak / 1048576),
      unit: 'MiB',
      note: 'symlink loop followed: largest process under the command (sampled every 100 ms)',
    },
    'hostile.loop.stop_ms': {
      value: Date.now() - stopAt,
      unit: 'ms',
      note: 'symlink loop followed: Ctrl+C to the command ended',
    },
  };
}
