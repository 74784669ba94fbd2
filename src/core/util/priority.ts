/**
 * The embedding stage runs below everything else (on Linux, where a thread has a priority of its
 * own), so parsing — what makes a case searchable — and the window take the cores first, and the
 * vectors catch up when parsing is done. The local model's process runs as low, so a page, a search
 * and the lists are drawn at once while a model writes. Readers keep the usual priority: their page and file
 * limits are wall-clock times, and a lowered reader on a busy computer could be stopped as "took
 * too long" while it was only waiting for a core.
 */
import { readdirSync } from 'node:fs';
import os from 'node:os';

/** The embedding stage: the lowest. */
export const EMBED_PRIORITY = os.constants.priority.PRIORITY_LOW;

/** Whether a thread has a priority of its own here (Linux), so the embedding thread can run below the rest. */
export const THREAD_PRIORITIES = process.platform === 'linux';

/**
 * Lower the calling thread and the threads it starts from now on (onnxruntime's). Only on Linux,
 * where a thread has a priority of its own; elsewhere the call would lower the whole process.
 */
export function lowerThisThread(priority: number): void {
  if (!THREAD_PRIORITIES) return;
  try {
    // pid 0 is the calling thread on Linux (each thread is a task with its own nice value).
    os.setPriority(0, priority);
  } catch {
    // Not allowed here (a sandbox, a policy): the same work at the usual priority.
  }
}

/**
 * The local model's generation: as low as the embedding stage, so drawing a page, a search and the
 * lists take the cores first while a model writes, and the search's own query vector shares with it.
 */
export const GENERATE_PRIORITY = os.constants.priority.PRIORITY_LOW;

/**
 * Lower the whole calling process, for a child that only does background work. On Linux each
 * thread has its own nice value: every thread the process has now is lowered, and a thread started
 * later inherits its starter's (the model's threads are started by threads lowered here).
 * Elsewhere the call lowers the process itself.
 */
export function lowerThisProcess(priority: number): void {
  if (!THREAD_PRIORITIES) {
    try {
      os.setPriority(0, priority);
    } catch {
      // Not allowed here: the same work at the usual priority.
    }
    return;
  }
  lowerThisThread(priority);
  let tasks: string[] = [];
  try {
    tasks = readdirSync('/proc/self/task');
  } catch {
    return;
  }
  for (const tid of tasks) {
    try {
      os.setPriority(Number(tid), priority);
    } catch {
      // A thread that ended meanwhile, or a policy that forbids it.
    }
  }
}
