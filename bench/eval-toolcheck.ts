/**
 * `npm run eval:toolcheck [-- --n 12]`: tools that fail silently, caught or missed. The corrupter
 * (test/agent/corrupter.ts) alters one call of a scripted turn over the small test case (real ingest,
 * real LanceDB, real tools) — a wrong file id, a file name the case does not have, an empty query,
 * passages of another document shuffled into a search limited to one, another section's text, "no
 * match" from a grep — N turns per kind, each varied (file, section, how the name is mangled). For
 * each kind it prints how many the tool check caught (trace says "Corrected: …", nothing of the
 * corrupted result shown or cited) and missed; the same turns without the check (what got through
 * before); and false alarms on the same turns left clean. Merges `toolcheck.<kind>.caught` (share)
 * and `toolcheck.false_alarms` into bench/results.json.
 */
import { rmSync } from 'node:fs';
import { anyCorrection, caseFiles, CORRUPTIONS, corruptedTurn, playTurn } from '../test/agent/corrupter';
import { ingestedCase } from '../test/agent/helpers';
import { mergeResults, type Metrics } from './run';

function argN(): number {
  const at = process.argv.indexOf('--n');
  const n = at >= 0 ? Number(process.argv[at + 1]) : 12;
  return Number.isInteger(n) && n > 0 ? n : 12;
}

async function main(): Promise<void> {
  const n = argN();
  const c = await ingestedCase();
  const metrics: Metrics = {};
  const rows: string[] = [
    '| kind | turns | caught | missed | caught without the check | false alarms (clean) |',
    '|---|---:|---:|---:|---:|---:|',
  ];
  let falseAlarms = 0;
  try {
    const files = await caseFiles(c.engine, c.caseId);
    for (const kind of CORRUPTIONS) {
      let caught = 0;
      let before = 0;
      let alarms = 0;
      const misses: string[] = [];
      for (let i = 0; i < n; i++) {
        const turn = corruptedTurn(kind, i, files);
        const verdict = turn.judge(await playTurn(c.engine, c.caseId, turn));
        if (verdict.caught) caught++;
        else misses.push(`  ${kind} #${i}: ${verdict.why}`);
        const unchecked = corruptedTurn(kind, i, files);
        if (unchecked.judge(await playTurn(c.engine, c.caseId, unchecked, { check: false })).caught) before++;
        if (anyCorrection(await playTurn(c.engine, c.caseId, corruptedTurn(kind, i, files), { corrupt: false })))
          alarms++;
      }
      falseAlarms += alarms;
      rows.push(`| ${kind} | ${n} | ${caught} | ${n - caught} | ${before} | ${alarms} |`);
      for (const m of misses) console.log(m);
      metrics[`toolcheck.${kind}.caught`] = {
        value: caught / n,
        unit: 'share',
        note: `${caught} of ${n} corrupted turns caught`,
      };
    }
    metrics['toolcheck.false_alarms'] = {
      value: falseAlarms,
      unit: 'turns',
      note: `clean turns with a correction, of ${n * CORRUPTIONS.length}`,
    };
  } finally {
    await c.engine.close();
    rmSync(c.root, { recursive: true, force: true });
  }
  console.log(rows.join('\n'));
  await mergeResults(metrics);
}

await main();
