import { spawn } from 'node:child_process';
import path from 'node:path';
import { createInterface } from 'node:readline';

/** Another process holding a case's ingest lock, as a Casefile process adding files to it does. */
export interface CaseHolder {
  pid: number;
  /** The other process finishes: it removes its lock and exits. */
  release(): Promise<void>;
  /** The other process is killed: its lock stays behind, naming a process that is gone. */
  kill(): Promise<void>;
}

/**
 * Start a second process that takes `<caseDir>/ingest.lock` the way `case-lock.ts` writes it
 * (created exclusively, naming its own pid) and holds it until released or killed.
 */
export async function holdCase(caseDir: string): Promise<CaseHolder> {
  const code = `
    const fs = require('node:fs');
    const file = process.argv[1];
    fs.writeFileSync(file, JSON.stringify({ pid: process.pid, started: new Date().toISOString() }), { flag: 'wx' });
    console.log('held');
    process.stdin.on('data', () => { fs.rmSync(file, { force: true }); process.exit(0); });
  `;
  const child = spawn(process.execPath, ['-e', code, path.join(caseDir, 'ingest.lock')], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  await new Promise<void>((resolve, reject) => {
    createInterface({ input: child.stdout! }).once('line', () => resolve());
    child.once('exit', (c) => reject(new Error(`the lock holder exited early (${c})`)));
  });
  return {
    pid: child.pid!,
    async release() {
      child.stdin!.write('release\n');
      await exited;
    },
    async kill() {
      child.kill('SIGKILL');
      await exited;
    },
  };
}
