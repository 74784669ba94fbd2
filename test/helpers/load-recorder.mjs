// `node --import ./test/helpers/load-recorder.mjs …`: appends to the file named by
// CASEFILE_LOAD_LOG every module the process loads, one file: URL or path a line, so a test
// can check which packages a command pulled in. ESM imports are seen by a resolve hook
// (load-recorder-hooks.mjs); CommonJS modules by require.cache when the process exits.
import { appendFileSync } from 'node:fs';
import { createRequire, register } from 'node:module';

const log = process.env.CASEFILE_LOAD_LOG;
if (log) {
  register('./load-recorder-hooks.mjs', import.meta.url, { data: { log } });
  const cache = createRequire(import.meta.url).cache;
  process.on('exit', () => {
    const files = Object.keys(cache);
    if (files.length) appendFileSync(log, `${files.join('\n')}\n`);
  });
}
