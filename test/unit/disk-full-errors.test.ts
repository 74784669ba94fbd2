import { describe, expect, it } from 'vitest';
import { httpError } from '../../src/server/http-errors';
import { toApiError } from '../../src/shared/errors';

/** Out of space at any boundary (CLI, the app's IPC, serve): what ran out and what was kept, never a bare errno. */
describe('a full disk is said in plain words', () => {
  it('a Node write error, a native library’s message, a used-up quota', () => {
    const write = Object.assign(new Error('ENOSPC: no space left on device, write'), {
      code: 'ENOSPC',
      errno: -28,
      syscall: 'write',
    });
    expect(toApiError(write)).toEqual({
      code: 'failed',
      message: 'The disk is full. Nothing already in the case was lost; free some space and try again.',
    });
    const open = Object.assign(new Error("ENOSPC: no space left on device, open '/cases/c1/files.json'"), {
      code: 'ENOSPC',
      path: '/cases/c1/files.json',
    });
    expect(toApiError(open).message).toBe(
      'The disk is full (writing /cases/c1/files.json). Nothing already in the case was lost; free some space and try again.',
    );
    // LanceDB and onnxruntime pass the system's own words up as a plain Error.
    expect(toApiError(new Error('lance error: IO error: No space left on device (os error 28)')).message).toMatch(
      /^The disk is full\. Nothing already in the case was lost/,
    );
    expect(
      toApiError(Object.assign(new Error('EDQUOT: disk quota exceeded, write'), { code: 'EDQUOT' })).message,
    ).toMatch(/^Your disk quota is used up\. Nothing already/);
    // Serve answers it as an expected failure with that message, not as a server bug.
    expect(httpError(write)).toEqual({
      status: 422,
      error: expect.objectContaining({ code: 'failed', message: expect.stringMatching(/^The disk is full/) }),
    });
  });
});
