/**
 * A process killed in the middle of an import leaves at most a staging folder, removed at the next
 * start; one killed while setting a case aside as an earlier version leaves it hidden, and the next
 * start finishes that (under its new id), so nothing is lost and nothing half-imported is listed.
 */
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { CaseRegistry } from '../../src/core/cases/index';
import { tempHome } from '../helpers/home';

describe('leftovers of a killed import', () => {
  it('a staging folder goes; a case being kept as an earlier version is finished', async () => {
    const home = tempHome();
    const cases = new CaseRegistry(home);
    await cases.init();
    const kept = await cases.create('Smith v. Jones');
    const staging = await cases.newStaging();
    writeFileSync(path.join(staging, 'half.bin'), 'half');
    // Killed right after the rename to the hidden name, before case.json named its new id.
    const hidden = path.join(cases.casesDir, '.earlier-cearlier1');
    mkdirSync(hidden);
    writeFileSync(
      path.join(hidden, 'case.json'),
      JSON.stringify({ ...(await cases.readMeta(kept.id)), id: kept.id, name: 'Old matter' }),
    );

    const again = new CaseRegistry(home);
    await again.init();
    expect(readdirSync(again.casesDir).sort()).toEqual(['cearlier1', kept.id].sort());
    expect((await again.list()).map((c) => [c.id, c.name]).sort()).toEqual(
      [
        ['cearlier1', 'Old matter (earlier version)'],
        [kept.id, 'Smith v. Jones'],
      ].sort(),
    );
  });
});
