// Module hooks of load-recorder.mjs (they run on Node's loader thread): record every resolved URL.
import { appendFileSync } from 'node:fs';

let log;

export function initialize(data) {
  log = data.log;
}

export async function resolve(specifier, context, nextResolve) {
  const resolved = await nextResolve(specifier, context);
  if (log) appendFileSync(log, `${resolved.url}\n`);
  return resolved;
}
