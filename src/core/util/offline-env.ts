/**
 * Native libraries that would reach the network on their own, switched off in the real process
 * environment, so that Casefile makes no connection unless asked to (a model download, an endpoint).
 *
 * onnxruntime-node (under transformers.js, the embedding runtime) starts Microsoft's 1DS telemetry
 * when it creates its environment unless `ORT_DISABLE_TELEMETRY` is set: it resolves
 * mobile.events.data.microsoft.com, keeps a device id and an event database under
 * ~/.cache/Microsoft/DeveloperTools/.onnxruntime/, and leaves a `mat-debug-<pid>.log` in the temp
 * folder of every process that loads it. transformers.js sets the variable itself, but inside the
 * embedding worker thread, whose `process.env` is a private copy that native code never reads.
 *
 * Assigning `process.env` on a process's main thread sets the real environment (setenv), which
 * every thread of the process reads and every child process inherits. So every entry calls this
 * first (CLI, server, Electron main), and the engine again before it starts the embedding worker
 * or loads transformers.js, for embedders of the engine that are not one of those entries.
 * Telemetry is always forced off: a value already set by the user is replaced, not respected.
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
