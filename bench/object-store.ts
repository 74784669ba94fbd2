/**
 * Object storage benchmark (`npm run bench object-store`): the same small case ingested and
 * searched with its index in its local folder and on a real S3-compatible server (SeaweedFS on
 * loopback, scripts/s3-server.mjs), interleaved in one run so both see the same machine. Reports
 * medians of whole ingests of four CUAD contracts and the median and p95 of searches through the
 * engine, warm (the table already open): keyword-only (no embedding model), and hybrid with the
 * default embedding model (models/all-MiniLM-L6-v2) where it is installed.
 */
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Engine } from '../src/core/engine';
// @ts-expect-error -- a plain .mjs script without type declarations
import { startWeed } from '../scripts/s3-server.mjs';

interface Metric {
  value: number;
  unit: string;
  note: string;
}

const MODELS = path.resolve(import.meta.dirname, '../models');
const CUAD = path.resolve(import.meta.dirname, '../../shared/corpus/cuad/full_contract_pdf/Part_I');
const DOCS = [
  'Co_Branding/PcquoteComInc_19990721_S-1A_EX-10.11_6377149_EX-10.11_Co-Branding Agreement2.pdf',
  'Co_Branding/MphaseTechnologiesInc_20030911_10-K_EX-10.15_1560667_EX-10.15_Co-Branding Agreement.pdf',
  'License_Agreements/DataCallTechnologies_20060918_SB-2A_EX-10.9_944510_EX-10.9_Content License Agreement.pdf',
  'License_Agreements/WatchitMediaInc_20061201_8-K_EX-10.1_4148672_EX-10.1_Content License Agreement.pdf',
];
const QUERIES = [
  'termination for convenience',
  'governing law',
  'exclusive license territory',
  'indemnification',
  'royalty payment',
  'confidential information',
  'co-branded web site',
  'assignment change of control',
];
const INGESTS = 4;
const QUERY_ROUNDS = 5;

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};
const p95 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * 0.95))]!;

interface WeedServer {
  endpoint: string;
  bucket: string;
  accessKeyId: string;
  secretAccessKey: string;
  stop(): Promise<void>;
}

async function weed(): Promise<WeedServer> {
  // CASEFILE_TEST_WEED, else the cached binary, fetched first when missing.
  return (await startWeed({})) as WeedServer;
}

/** Ingest the documents into a new case; its id and the milliseconds the ingest took. */
async function timedIngest(engine: Engine, drop: string): Promise<{ caseId: string; ms: number }> {
  const { id: caseId } = await engine.router.call('cases.create', { name: 'bench' });
  const t0 = performance.now();
  await engine.router.call('ingest.start', { case_id: caseId, paths: [drop] });
  return { caseId, ms: performance.now() - t0 };
}

async function timedQueries(engine: Engine, caseId: string, mode: 'keyword' | 'hybrid'): Promise<number[]> {
  const call = engine.router.call.bind(engine.router);
  // The first search opens the table (and the query model); a hybrid one must really search by meaning.
  const first = await call('search', { case_id: caseId, query: QUERIES[0]!, mode, k: 10 });
  if (mode === 'hybrid' && !first.semantic) throw new Error(`no search by meaning: ${first.semantic_reason}`);
  const times: number[] = [];
  for (let round = 0; round < QUERY_ROUNDS; round++)
    for (const query of QUERIES) {
      const t0 = performance.now();
      await call('search', { case_id: caseId, query, mode, k: 10 });
      times.push(performance.now() - t0);
    }
  return times;
}

interface Setup {
  root: string;
  server: WeedServer;
  drop: string;
  engines: Engine[];
}

/** An engine on a new home: its index local or (`s3`) on the server; with the default embedding model when `model`. */
async function openHome(setup: Setup, name: string, s3: boolean, model: boolean): Promise<Engine> {
  const home = path.join(setup.root, name);
  mkdirSync(home);
  const { server } = setup;
  if (s3)
    writeFileSync(
      path.join(home, 'object-store.json'),
      JSON.stringify({ endpoint: server.endpoint, bucket: server.bucket, prefix: 'bench' }),
    );
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    CASEFILE_BUNDLED_MODELS: model ? undefined : 'off',
    CASEFILE_S3_ACCESS_KEY_ID: server.accessKeyId,
    CASEFILE_S3_SECRET_ACCESS_KEY: server.secretAccessKey,
  };
  const engine = await Engine.open({ home, env, bundledModelDirs: [MODELS], ingest: { concurrency: 1, ocr: false } });
  setup.engines.push(engine);
  return engine;
}

/** Ingests interleaved local / S3, then searches on the last case of each; the figures under `key`. */
async function compare(setup: Setup, key: string, mode: 'keyword' | 'hybrid'): Promise<Record<string, Metric>> {
  const model = mode === 'hybrid';
  const local = await openHome(setup, `${key}-local`, false, model);
  const s3 = await openHome(setup, `${key}-s3`, true, model);
  const ingest = { local: [] as number[], s3: [] as number[] };
  let cases = { local: '', s3: '' };
  for (let i = 0; i < INGESTS; i++) {
    // Each goes first every other time, so neither always finds the files and model the warmer for the other.
    const first = i % 2 === 0 ? local : s3;
    const x = await timedIngest(first, setup.drop);
    const y = await timedIngest(first === local ? s3 : local, setup.drop);
    const [a, b] = first === local ? [x, y] : [y, x];
    ingest.local.push(a.ms);
    ingest.s3.push(b.ms);
    cases = { local: a.caseId, s3: b.caseId };
  }
  const queries = { local: await timedQueries(local, cases.local, mode), s3: await timedQueries(s3, cases.s3, mode) };
  const what = model ? 'with all-MiniLM-L6-v2 vectors' : 'keyword-only';
  const n = `median of ${INGESTS} ingests of ${DOCS.length} CUAD contracts, ${what}`;
  const q = `${QUERIES.length * QUERY_ROUNDS} ${mode} searches through the engine, table open`;
  const out: Record<string, Metric> = {};
  for (const where of ['local', 's3'] as const) {
    out[`object_store.${key}.ingest_ms.${where}`] = { value: median(ingest[where]), unit: 'ms', note: n };
    out[`object_store.${key}.search_p50_ms.${where}`] = { value: median(queries[where]), unit: 'ms', note: q };
    out[`object_store.${key}.search_p95_ms.${where}`] = { value: p95(queries[where]), unit: 'ms', note: q };
  }
  return out;
}

export async function objectStoreBench(): Promise<Record<string, Metric>> {
  const root = mkdtempSync(path.join(os.tmpdir(), 'casefile-bench-s3-'));
  const setup: Setup = { root, server: await weed(), drop: path.join(root, 'drop'), engines: [] };
  try {
    mkdirSync(setup.drop);
    for (const doc of DOCS) copyFileSync(path.join(CUAD, doc), path.join(setup.drop, path.basename(doc)));
    const metrics = await compare(setup, 'keyword', 'keyword');
    if (existsSync(path.join(MODELS, 'all-MiniLM-L6-v2')))
      Object.assign(metrics, await compare(setup, 'hybrid', 'hybrid'));
    else console.log('(object-store: no models/all-MiniLM-L6-v2, the hybrid comparison is skipped)');
    return metrics;
  } finally {
    for (const e of setup.engines) await e.close();
    await setup.server.stop();
    rmSync(root, { recursive: true, force: true });
  }
}
