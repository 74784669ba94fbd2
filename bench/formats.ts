/**
 * Reader throughput per format (part of `npm run bench`): each sample is read by `parseFile` — the
 * reader process's whole job before chunking — several times in this process, and the median is
 * reported as files/s and MB/s, with its text size. Samples: real corpus files where the corpus
 * has the format (PDF, DOCX, .doc), the Outlook sample of the tests, and files written here by the
 * formats' own writers (SheetJS, nodemailer, fflate) or by hand (RTF, HTML), sized like real ones.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import * as XLSX from '@e965/xlsx';
import { parseFile } from '../src/core/reader/parse';
import { eml, zip } from '../test/helpers/mail';
import type { Metrics } from './run';

const CORPUS = path.resolve(import.meta.dirname, '..', '..', 'shared', 'corpus');
const RUNS = 5;

const sentence = (i: number) =>
  `Paragraph ${i}: the tenant reported water damage in unit ${i % 40} on March ${(i % 28) + 1}, 2023, and the landlord answered within ${i % 30} days.`;

function billing(rows: number): Buffer {
  const aoa: (string | number)[][] = [['Date', 'Timekeeper', 'Hours', 'Rate', 'Description']];
  for (let i = 0; i < rows; i++)
    aoa.push([
      `2023-${String((i % 12) + 1).padStart(2, '0')}-${String((i % 28) + 1).padStart(2, '0')}`,
      i % 2 ? 'J. Doe' : 'R. Roe',
      (i % 8) + 0.25,
      350,
      `Task ${i}: review of production volume ${i % 17}`,
    ]);
  const wb = XLSX.utils.book_new();
  XLSX.utils.book_append_sheet(wb, XLSX.utils.aoa_to_sheet(aoa), 'Billing');
  return XLSX.write(wb, { type: 'buffer', bookType: 'xlsx' }) as Buffer;
}

async function samples(): Promise<{ format: string; name: string; bytes: Uint8Array }[]> {
  const paras = Array.from({ length: 400 }, (_, i) => sentence(i));
  const rtf = `{\\rtf1\\ansi\\deff0{\\fonttbl{\\f0 Times New Roman;}}\\f0\\fs24 ${paras.map((p) => p.replace(/[\\{}]/g, '')).join('\\par\n')}\\par}`;
  const html = `<!DOCTYPE html><html><head><title>Notice</title><script>var x = 1;</script></head><body><h1>Notice</h1>${paras.map((p) => `<p>${p}</p>`).join('')}<table>${paras
    .slice(0, 100)
    .map((p, i) => `<tr><td>${i}</td><td>${p}</td></tr>`)
    .join('')}</table></body></html>`;
  const mail = await eml({
    from: 'Jane Doe <jane@firm.example>',
    to: 'Client <client@example.com>',
    subject: 'Re: Notice of default',
    date: new Date('2023-05-02T14:03:00Z'),
    text: paras.slice(0, 60).join('\n\n'),
    attachments: [{ filename: 'notes.txt', content: paras.join('\n') }],
  });
  const archive = zip(
    Object.fromEntries(
      Array.from({ length: 50 }, (_, i) => [`production/vol${i % 5}/doc-${i}.txt`, paras.slice(i, i + 40).join('\n')]),
    ),
  );
  const csv = [
    'Date,Timekeeper,Hours,Description',
    ...Array.from(
      { length: 5000 },
      (_, i) => `2023-03-${String((i % 28) + 1).padStart(2, '0')},J. Doe,${(i % 8) + 0.5},Task ${i}`,
    ),
  ].join('\n');
  return [
    {
      format: 'pdf',
      name: 'contract.pdf',
      bytes: readFileSync(
        path.join(
          CORPUS,
          'cuad/full_contract_pdf/Part_I/Affiliate_Agreements/LinkPlusCorp_20050802_8-K_EX-10_3240252_EX-10_Affiliate Agreement.pdf',
        ),
      ),
    },
    { format: 'docx', name: 'motion.docx', bytes: readFileSync(path.join(CORPUS, 'freelaw-doctor/word-docx.docx')) },
    { format: 'doc', name: 'motion.doc', bytes: readFileSync(path.join(CORPUS, 'freelaw-doctor/word-doc.doc')) },
    { format: 'rtf', name: 'letter.rtf', bytes: Buffer.from(rtf) },
    { format: 'html', name: 'notice.html', bytes: Buffer.from(html) },
    { format: 'eml', name: 'notice.eml', bytes: mail },
    {
      format: 'msg',
      name: 'sample.msg',
      bytes: gunzipSync(
        readFileSync(path.join(import.meta.dirname, '..', 'test', 'fixtures', 'msg', 'attach-sample-eml-sent.msg.gz')),
      ),
    },
    { format: 'xlsx', name: 'billing.xlsx', bytes: billing(5000) },
    { format: 'csv', name: 'billing.csv', bytes: Buffer.from(csv) },
    { format: 'zip', name: 'production.zip', bytes: archive },
  ];
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

export async function formatsBench(): Promise<Metrics> {
  const metrics: Metrics = {};
  for (const s of await samples()) {
    const times: number[] = [];
    let chars = 0;
    let status = '';
    for (let run = 0; run < RUNS; run++) {
      const t0 = performance.now();
      const out = await parseFile({ bytes: s.bytes, name: s.name, maxBytes: 500 * 1024 * 1024 });
      times.push(performance.now() - t0);
      chars = out.doc?.text.length ?? 0;
      status = out.status;
    }
    const ms = median(times);
    const mb = s.bytes.byteLength / 1024 / 1024;
    const note = `${s.name}: ${(mb * 1024).toFixed(0)} KB → ${chars.toLocaleString('en-US')} characters (${status}); median of ${RUNS} reads, ${ms.toFixed(1)} ms`;
    metrics[`formats.${s.format}.files_per_s`] = { value: 1000 / ms, unit: 'files/s', note };
    metrics[`formats.${s.format}.mb_per_s`] = {
      value: mb / (ms / 1000),
      unit: 'MB/s',
      note: `${s.name}, the same reads`,
    };
  }
  return metrics;
}
