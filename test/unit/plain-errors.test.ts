import { describe, expect, it } from 'vitest';
import { Engine } from '../../src/core/engine';
import { ApiError, errorMessage } from '../../src/renderer/src/api/errors';
import { CasefileError, toApiError } from '../../src/shared/errors';
import { runCli } from '../../src/cli/main';
import { tempHome } from '../helpers/home';

/** What the app shows for an engine error, as the renderer receives it. */
async function shown(p: Promise<unknown>): Promise<string> {
  const err = await p.then(
    () => null,
    (e: unknown) => e as CasefileError,
  );
  expect(err).toBeInstanceOf(CasefileError);
  return errorMessage(new ApiError(toApiError(err)));
}

describe('a refused input is said to the lawyer in a sentence', () => {
  it('an empty password, a bad Bates prefix, a folder that is not a full path', async () => {
    const engine = await Engine.open({ home: tempHome() });
    try {
      const { id: caseId } = await engine.router.call('cases.create', { name: 'Plain words' });
      expect(await shown(engine.router.call('files.unlock', { case_id: caseId, file_id: 'f1', password: '' }))).toBe(
        'Enter the password.',
      );
      expect(await shown(engine.router.call('files.setBates', { case_id: caseId, file_id: 'f1', prefix: 'A' }))).toBe(
        'A Bates prefix has at least 2 characters, such as ACME.',
      );
      expect(
        await shown(engine.router.call('files.setBates', { case_id: caseId, file_id: 'f1', prefix: '1ABC' })),
      ).toBe('A Bates prefix starts with a letter and holds only letters, digits, spaces, - or _.');
      expect(await shown(engine.router.call('cases.setWatch', { case_id: caseId, folders: ['Cases/Smith'] }))).toBe(
        'Give each folder as a full path, such as /Users/me/Cases/Smith.',
      );
      // What to do is said in the app's words (its buttons and menus), never as a CLI command.
      const following = await shown(engine.router.call('cases.setWatch', { case_id: caseId, enabled: true }));
      expect(following).toBe(
        'This case follows no folder yet. Add a folder to the case first (“Add folder…” in the documents pane).',
      );
      // A developer's field message (not a sentence) keeps the whole message, naming the field.
      expect(await shown(engine.router.call('files.list', { case_id: '../x' }))).toMatch(
        /^Invalid input to files\.list — case_id: /,
      );
    } finally {
      await engine.close();
    }
  });
});

describe("what to do is said in each shell's words", () => {
  it('the CLI names its command where the app names its menu', async () => {
    const home = tempHome();
    const err: string[] = [];
    const io = { out: () => {}, err: (t: string) => err.push(t), isTTY: false, env: {} };
    expect(await runCli(['--home', home, 'cases', 'create', 'Words'], io)).toBe(0);
    expect(await runCli(['--home', home, 'ask', 'Words', 'What notice is needed?', '--model', 'nope-7b'], io)).toBe(1);
    expect(err.join('\n')).toMatch(
      /^casefile: No chat model "nope-7b" is installed\. Installed: none\. Import one with "casefile models import <file\.gguf>"\.$/m,
    );
    expect(err.join('\n')).not.toMatch(/Settings/);
  });
});
