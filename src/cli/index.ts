import { runCli } from './main';

const code = await runCli(process.argv.slice(2), {
  out: (text) => process.stdout.write(`${text}\n`),
  err: (text) => process.stderr.write(`${text}\n`),
  isTTY: Boolean(process.stdout.isTTY),
  env: process.env,
});
process.exitCode = code;
