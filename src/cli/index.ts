import { applyOfflineEnv } from '../core/util/offline-env';
import { runCli } from './main';

// Before any command can load onnxruntime: its telemetry stays off in this process and its children.
applyOfflineEnv();

const code = await runCli(process.argv.slice(2), {
  out: (text) => process.stdout.write(`${text}\n`),
  err: (text) => process.stderr.write(`${text}\n`),
  isTTY: Boolean(process.stdout.isTTY),
  env: process.env,
});
process.exitCode = code;
