import { describe, expect, it } from 'vitest';
import { runCasefile } from '../helpers/cli';
import { tempHome } from '../helpers/home';

describe('casefile --json: snake_case names, the former camelCase ones beside them until 0.2', () => {
  it('prints each renamed field under both names, with the same value', async () => {
    const home = tempHome();
    const created = await runCasefile(home, ['cases', 'create', 'Names', '--json']);
    expect(created.code).toBe(0);
    const { id } = JSON.parse(created.stdout) as { id: string };

    const watch = await runCasefile(home, ['watch', id, '--off', '--json']);
    expect(watch.code).toBe(0);
    const followed = JSON.parse(watch.stdout) as Record<string, unknown>;
    expect(followed).toMatchObject({ case_id: id, caseId: id, watch: { enabled: false, folders: [] } });
    // The former name right after the name now.
    expect(Object.keys(followed)).toEqual(['case_id', 'caseId', 'watch']);

    const dates = await runCasefile(home, ['cases', 'dates', id, 'day-first', '--json']);
    expect(dates.code).toBe(0);
    expect(JSON.parse(dates.stdout)).toEqual({ id, dates: { day_first: true, dayFirst: true } });
  });
});
