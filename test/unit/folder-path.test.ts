/** A folder typed to follow (serve mode has no folder dialog) is checked before it is sent, with what is wrong in a sentence. */
import { describe, expect, it } from 'vitest';
import { folderPathProblem } from '../../src/renderer/src/lib/folder-path';

describe('folderPathProblem – a typed folder to follow', () => {
  it('full paths pass: POSIX, a Windows drive, a network share', () => {
    for (const p of ['/Users/me/Cases/Smith v Jones', 'C:\\Cases\\Smith', 'd:/Cases', '\\\\server\\share\\Smith'])
      expect(folderPathProblem(p, [])).toBeNull();
  });

  it('empty, relative and already followed are refused in sentences that say what to type', () => {
    expect(folderPathProblem('  ', [])).toBe('Type the folder’s full path, such as /Users/me/Cases/Smith v Jones.');
    expect(folderPathProblem('Cases/Smith', [])).toBe(
      '“Cases/Smith” is not a full path. Type it from the top of the disk: it starts with / (or with a drive letter such as C:\\ on Windows).',
    );
    expect(folderPathProblem('/Cases/Smith ', ['/Cases/Smith'])).toBe('This case already follows that folder.');
  });
});
