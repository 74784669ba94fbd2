import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { writeJsonAtomic } from '../core/util/fs';

const WindowState = z.object({
  x: z.number().int().optional(),
  y: z.number().int().optional(),
  width: z.number().int().min(640).max(10000),
  height: z.number().int().min(480).max(10000),
  maximized: z.boolean().default(false),
});
export type WindowState = z.infer<typeof WindowState>;

export const DEFAULT_WINDOW_STATE: WindowState = { width: 1360, height: 860, maximized: false };

/** The last window size/position, or the default when none (or a damaged one) is stored. */
export function loadWindowState(file: string): WindowState {
  try {
    const parsed = WindowState.safeParse(JSON.parse(readFileSync(file, 'utf8')));
    return parsed.success ? parsed.data : DEFAULT_WINDOW_STATE;
  } catch {
    return DEFAULT_WINDOW_STATE;
  }
}

export async function saveWindowState(file: string, state: WindowState): Promise<void> {
  await writeJsonAtomic(file, state);
}
