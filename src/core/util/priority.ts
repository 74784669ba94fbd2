/**
 * Background work runs below the app, so a long ingest never slows the window: reader processes
 * below normal priority, the embedding thread (on Linux) lower still, so parsing — what makes a
 * case searchable — takes the cores first and the vectors catch up when it is done.
 */
import os from 'node:os';

/** Reader processes: below the app (the engine, the window). */
export const READER_PRIORITY = os.constants.priority.PRIORITY_BELOW_NORMAL;
/** The embedding stage: below the readers. */
export const EMBED_PRIORITY = os.constants.priority.PRIORITY_LOW;

/** os.setPriority; where the system refuses, things run as they are (only less polite). */
function setPriority(pid: number, priority: number): void {
  try {
    os.setPriority(pid, priority);
  } catch {
    // Not allowed here (a sandbox, a policy): the same work at the usual priority.
  }
}

/** Lower a child process's priority (its threads started from now on follow it). */
export function lowerProcess(pid: number | undefined, priority: number): void {
  if (pid) setPriority(pid, priority);
}

/**
 * Lower the calling thread and the threads it starts from now on (onnxruntime's). Only on Linux,
 * where a thread has a priority of its own; elsewhere the call would lower the whole process.
 */
export function lowerThisThread(priority: number): void {
  // pid 0 is the calling thread on Linux (each thread is a task with its own nice value).
  if (process.platform === 'linux') setPriority(0, priority);
}
