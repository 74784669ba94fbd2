/**
 * Switches off, in the real process environment, native libraries that would reach the network on
 * their own (onnxruntime-node's telemetry, unless `ORT_DISABLE_TELEMETRY` is set). It must be the real
 * environment: transformers.js sets the variable only in the worker's private `process.env`, which
 * native code never reads. So every entry calls this first, and the engine again before it loads the
 * embedder. A user's value is replaced, not respected: telemetry is always off.
 */
export const OFFLINE_ENV: Readonly<Record<string, string>> = Object.freeze({
  ORT_DISABLE_TELEMETRY: '1',
});

/** Set `OFFLINE_ENV` in `env` (the real process environment by default). Idempotent and cheap. */
export function applyOfflineEnv(env: NodeJS.ProcessEnv = process.env): void {
  for (const [name, value] of Object.entries(OFFLINE_ENV)) {
    if (env[name] !== value) env[name] = value;
  }
}
