import { describe, expect, it } from 'vitest';
import { runCasefile } from '../helpers/cli';
import { tempHome } from '../helpers/home';

describe('casefile firm', () => {
  const home = tempHome('casefile-firm-cli-');

  it('adds users with a piped password, lists them, manages a case’s members, removes a user', async () => {
    const admin = await runCasefile(home, ['firm', 'user', 'add', 'Dana', '--admin', '--json'], {
      input: 'a long admin password\n',
    });
    expect(admin.stderr).toBe('');
    expect(JSON.parse(admin.stdout)).toMatchObject({ name: 'dana', role: 'admin', cases: [] });
    const short = await runCasefile(home, ['firm', 'user', 'add', 'rex'], { input: 'short\n' });
    expect(short.code).toBe(2);
    expect(short.stderr).toMatch(/at least 10 characters/);
    expect((await runCasefile(home, ['firm', 'user', 'add', 'rex'], { input: 'a reviewer password\n' })).code).toBe(0);
    const again = await runCasefile(home, ['firm', 'user', 'add', 'REX'], { input: 'a reviewer password\n' });
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/already a user named rex/);

    const created = await runCasefile(home, ['cases', 'create', 'Smith v Jones', '--json']);
    const caseId = (JSON.parse(created.stdout) as { id: string }).id;
    const added = await runCasefile(home, ['firm', 'members', 'add', 'Smith v Jones', 'rex', '--json']);
    expect(JSON.parse(added.stdout)).toMatchObject({ case_id: caseId, members: ['rex'] });
    const listed = await runCasefile(home, ['firm', 'user', 'list', '--json']);
    expect(JSON.parse(listed.stdout)).toMatchObject({
      users: [
        { name: 'dana', role: 'admin', cases: [] },
        { name: 'rex', role: 'reviewer', cases: [caseId] },
      ],
    });
    const nobody = await runCasefile(home, ['firm', 'members', 'add', caseId, 'nobody']);
    expect(nobody.code).toBe(1);
    expect(nobody.stderr).toMatch(/no user named nobody/);

    expect((await runCasefile(home, ['firm', 'user', 'remove', 'rex'])).code).toBe(0);
    const members = await runCasefile(home, ['firm', 'members', 'list', caseId, '--json']);
    expect(JSON.parse(members.stdout)).toMatchObject({ case_id: caseId, members: [] });
    const last = await runCasefile(home, ['firm', 'user', 'remove', 'dana']);
    expect(last.code).toBe(1);
    expect(last.stderr).toMatch(/only administrator/);
  });
});
