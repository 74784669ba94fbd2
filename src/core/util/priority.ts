/**
 * The embedding stage runs below everything else (on Linux, where a thread has a priority of its
 * own), so parsing — what makes a case searchable — and the window take the cores first, and the
 * vectors catch up when parsing is done. Readers keep the usual priority: their page and file
 * limits are wall-clock times, and a lowered reader on a busy computer could be stopped as "took
 * too long" while it was only waiting for a core.
 */
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
