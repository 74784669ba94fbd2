/**
 * A second process writing the audit trail (test/unit/audit-trail.test.ts): `node --import tsx
 * audit-writer.ts <home> <tag> <count>` prints "ready", waits for a line on stdin, then appends
 * `count` entries and exits.
 */
import { createInterface } from 'node:readline';
import { AuditLog } from '../../src/core/audit/log';

const [home, tag, count] = process.argv.slice(2);
const log = new AuditLog(home!);
const lines = createInterface({ input: process.stdin });
process.stdout.write('ready\n');
await new Promise((resolve) => lines.once('line', resolve));
lines.close();
for (let i = 0; i < Number(count); i++)
  await log.append({
    actor: { user: tag!, role: 'reviewer', address: '10.0.0.1' },
    case_id: 'c1',
    kind: 'search',
    what: { words: `${tag} ${i}` },
  });
