/**
 * A folder path typed in the app (serve mode has no folder dialog), checked before it is sent, with
 * what is wrong said in a sentence. The engine checks again (and whether the folder is there).
 */

/** Whether a path starts at the top of a disk: /…, C:\… or C:/…, or \\server\share. */
function isFullPath(p: string): boolean {
  return p.startsWith('/') || /^[A-Za-z]:[\\/]/.test(p) || p.startsWith('\\\\');
}

/** What is wrong with a folder typed to follow, or null when it can be sent. */
export function folderPathProblem(typed: string, followed: readonly string[]): string | null {
  const p = typed.trim();
  if (!p) return 'Type the folder’s full path, such as /Users/me/Cases/Smith v Jones.';
  if (!isFullPath(p))
    return `“${p}” is not a full path. Type it from the top of the disk: it starts with / (or with a drive letter such as C:\\ on Windows).`;
  if (followed.includes(p)) return 'This case already follows that folder.';
  return null;
}
