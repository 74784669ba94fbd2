/**
 * Settings of the window kept in its local storage (the pane widths, the thumbnails strip): read
 * and written without failing where storage is off (a private window), where they then last the
 * session only.
 */
export function remembered(key: string): string | null {
  try {
    return globalThis.localStorage?.getItem(key) ?? null;
  } catch {
    return null;
  }
}

export function remember(key: string, value: string): void {
  try {
    globalThis.localStorage?.setItem(key, value);
  } catch {
    // Storage off: the setting lasts this session only.
  }
}
