/**
 * The chronology of a case: dated events from every kind of document, in order, filtered, cited;
 * exported as CSV and Word; used by the agent for "when did … last …" questions; and the CLI.
 */
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { unzipSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import { localeDayFirst } from '../../src/core/cases/registry';
import { runCasefile } from '../helpers/cli';
import { ingestedCase } from '../helpers/case';
import { workbook } from '../fixtures/sheets';
import { eml } from '../helpers/mail';

const NOTES = [
  'Medical history of John Roe.',
  '',
  'On March 3, 2021 John Roe slipped on the wet stairs at 12 Elm Street and hurt his left knee.',
  '',
  'He first saw Dr. Maria Alvarez about the knee on March 10, 2021. Three days later he started physiotherapy.',
  '',
  'Dr. Maria Alvarez examined the knee again on Aug. 2, 2021 and ordered an MRI.',
  '',
  'In 2019 he had run two marathons. The policy covers claims for 30 days.',
].join('\n');

function billing(): Buffer {
  return workbook({
    Billing: [
      ['Date', 'Hours', 'Description'],
      ['2021-06-15', 2, 'Reviewed the MRI request'],
      ['2021-09-01', 1.5, 'Letter to the insurer'],
    ],
  });
}

async function setup() {
  return ingestedCase('Roe v. Elm Street', {
    'medical notes.txt': NOTES,
    'billing.xlsx': billing(),
    'demand.eml': await eml({
      from: 'Counsel <c@firm.example>',
      to: 'Insurer <claims@ins.example>',
      subject: 'Demand',
      date: new Date('2021-10-04T09:00:00Z'),
      text: 'We demand payment of the medical bills for John Roe by November 1, 2021.',
    }),
  });
}

describe('the chronology', () => {
  it('lists the dated events of every document in date order, each cited; filters by dates, words, person and document; exports CSV and Word', async () => {
    const { call, caseId } = await setup();
    const all = await call('tools.timeline', { case_id: caseId });
    const rows = all.events.map((e) => [e.date, e.precision, e.file_name]);
    expect(rows).toEqual([
      ['2019-01-01', 'year', 'medical notes.txt'],
      ['2021-03-03', 'day', 'medical notes.txt'],
      ['2021-03-10', 'day', 'medical notes.txt'],
      ['2021-03-13', 'day', 'medical notes.txt'],
      ['2021-06-15', 'day', 'billing.xlsx'],
      ['2021-08-02', 'day', 'medical notes.txt'],
      ['2021-09-01', 'day', 'billing.xlsx'],
      ['2021-10-04', 'day', 'demand.eml'],
      ['2021-11-01', 'day', 'demand.eml'],
    ]);
    expect(all.coverage).toMatchObject({ documents: 3, with_events: 3, not_readable: [] });
    const aug = all.events.find((e) => e.date === '2021-08-02')!;
    expect(aug).toMatchObject({
      text: 'Dr. Maria Alvarez examined the knee again on Aug. 2, 2021 and ordered an MRI.',
      people: ['Dr. Maria Alvarez'],
      pages: [1],
      citation: { file_name: 'medical notes.txt' },
    });
    const read = await call('tools.readFile', {
      case_id: caseId,
      file_id: aug.file_id,
      offset: aug.start,
      max_length: aug.end - aug.start,
    });
    expect(read.text).toBe(aug.text);
    expect(all.events.find((e) => e.date === '2021-06-15')).toMatchObject({ place: 'Sheet Billing, row 2' });

    const dates = async (input: Record<string, unknown>) =>
      (await call('tools.timeline', { case_id: caseId, ...input })).events.map((e) => e.date);
    expect(await dates({ from: '2021-03', to: '2021-08' })).toEqual([
      '2021-03-03',
      '2021-03-10',
      '2021-03-13',
      '2021-06-15',
      '2021-08-02',
    ]);
    expect(await dates({ to: '2019' })).toEqual(['2019-01-01']);
    expect(await dates({ query: 'knee' })).toEqual(['2021-03-03', '2021-03-10', '2021-08-02']);
    expect(await dates({ person: 'alvarez' })).toEqual(['2021-03-10', '2021-08-02']);
    expect(await dates({ file_name: 'demand' })).toEqual(['2021-10-04', '2021-11-01']);

    // Marks and notes are kept per case, on the event's sentence, and filter the list.
    expect(
      await call('tools.timelineMark', { case_id: caseId, key: aug.key, mark: 'key', note: 'MRI ordered: causation' }),
    ).toEqual({ key: aug.key, mark: 'key', note: 'MRI ordered: causation' });
    await call('tools.timelineMark', { case_id: caseId, key: all.events[0]!.key, mark: 'irrelevant' });
    expect((await call('tools.timeline', { case_id: caseId, mark: 'key' })).events).toMatchObject([
      { date: '2021-08-02', mark: 'key', note: 'MRI ordered: causation' },
    ]);
    expect(await call('tools.timelineMark', { case_id: caseId, key: all.events[0]!.key, mark: null })).toEqual({
      key: all.events[0]!.key,
      mark: null,
      note: '',
    });
    expect(await dates({ mark: 'irrelevant' })).toEqual([]);
    await expect(call('tools.timelineMark', { case_id: caseId, key: '../../etc', mark: 'key' })).rejects.toThrow(
      /key must be an event key/,
    );

    const csv = await call('tools.timelineExport', { case_id: caseId, format: 'csv', query: 'knee' });
    expect(csv.filename).toBe('Chronology - Roe v. Elm Street.csv');
    const lines = csv.csv!.trim().split('\r\n');
    // The sentence is the last column: the columns an earlier export had keep their places.
    expect(lines[0]).toBe('Date,Precision,Event,People,Document,Cite,Date as written,Mark,Note,Sentence');
    expect(lines[3]).toBe(
      '2021-08-02,day,"Dr. Maria Alvarez examined the knee again on Aug. 2, 2021 and ordered an MRI.",Dr. Maria Alvarez,medical notes.txt,p. 1,"Aug. 2, 2021",key,MRI ordered: causation,"Dr. Maria Alvarez examined the knee again on Aug. 2, 2021 and ordered an MRI."',
    );
    expect(lines).toHaveLength(4);

    const docx = await call('tools.timelineExport', { case_id: caseId, format: 'docx', from: '2021-06' });
    expect(docx.filename).toBe('Chronology - Roe v. Elm Street.docx');
    const xml = new TextDecoder().decode(unzipSync(Buffer.from(docx.docx_base64!, 'base64'))['word/document.xml']!);
    const cells = [...xml.matchAll(/<w:tc>[\s\S]*?<\/w:tc>/g)].map((m) =>
      [...m[0].matchAll(/<w:t[^>]*>([^<]*)<\/w:t>/g)].map((t) => t[1]).join(''),
    );
    expect(cells.slice(0, 6)).toEqual(['Date', 'Event', 'People', 'Document', 'Cite', 'Mark / note']);
    expect(cells.slice(6, 12)).toEqual([
      '2021-06-15',
      'Row 2 — Date: 2021-06-15 · Hours: 2 · Description: Reviewed the MRI request',
      '',
      'billing.xlsx',
      'Sheet Billing, row 2',
      '',
    ]);
    expect(cells.slice(12, 18)).toEqual([
      '2021-08-02',
      'Dr. Maria Alvarez examined the knee again on Aug. 2, 2021 and ordered an MRI.',
      'Dr. Maria Alvarez',
      'medical notes.txt',
      'p. 1',
      'key: MRI ordered: causation',
    ]);
    expect(cells).toHaveLength(6 * 6);
  });

  it('the agent answers "when did … last …" from the timeline tool, its citation supported; the CLI prints the chronology', async () => {
    const { home, call, caseId, close } = await setup();
    const script = path.join(home, 'timeline.json');
    writeFileSync(
      script,
      JSON.stringify({
        steps: [
          { thought: 'Inventory.', action: 'findFiles', action_input: {} },
          { thought: 'Dates about the knee.', action: 'timeline', action_input: { query: 'knee', person: 'Alvarez' } },
          { final: 'He last saw Dr. Maria Alvarez about the knee on Aug. 2, 2021 [cite:{{cite:2}}].' },
        ],
      }),
    );
    const r = await call('chat.ask', {
      case_id: caseId,
      question: 'When did the claimant last see a doctor about his knee?',
      model: `scripted:${script}`,
    });
    const step = r.steps.find((s) => s.action === 'timeline')!;
    expect(step.observation).toMatch(
      /^2 dated events, in date order\. Coverage: 3 documents read, 3 with dated events\./,
    );
    expect(step.observation).toContain('(2021-08-02)');
    expect(r).toMatchObject({ answer_kind: 'agent', grounded: true });
    expect(r.citations[0]).toMatchObject({ file_name: 'medical notes.txt', verified: true });
    await close();
    const cli = await runCasefile(home, ['chronology', 'Roe v. Elm Street', '--person', 'Alvarez']);
    expect(cli.stderr).toBe('');
    expect(cli.code).toBe(0);
    expect(cli.stdout).toMatch(
      /^DATE +EVENT +DOCUMENT +CITE\n2021-03-10 +He first saw Dr\. Maria Alvarez about the knee on March 10, 2021\. +medical notes\.txt +p\. 1\n2021-08-02 +Dr\. Maria Alvarez examined/,
    );
    expect(cli.stdout).toMatch(/\n\n2 of 2 events\. Coverage: 3 documents read, 3 with dated events\.\n?$/);
  });
});

describe('the case’s date order', () => {
  it('a document named by older rules gets the people of today’s: its events name "mPhase Technologies Inc.", not the cut "Technologies Inc."', async () => {
    const { engine, call, caseId } = await ingestedCase('Lucent and mPhase', {
      'co-branding.txt':
        'CO-BRANDING AGREEMENT\n\nThis Agreement is made this 21st day of January 2003 by and between Lucent Technologies Inc., a Delaware corporation ("Lucent") and mPhase Technologies Inc., a New Jersey corporation ("mPhase").\n\n' +
        'On February 3, 2003 mPhase Technologies Inc. delivered the first circuit boards to Lucent.\n',
    });
    const eventOf = async () =>
      (await call('tools.timeline', { case_id: caseId })).events.find((e) => e.date === '2003-02-03')!;
    expect((await eventOf()).people).toContain('mPhase Technologies Inc.');
    // As a version named before today's rules left it: its profile's parties cut, no events stored.
    const { files } = await call('files.list', { case_id: caseId });
    const dir = path.join(engine.cases.caseDir(caseId), 'docs', files[0]!.id, `v${files[0]!.version}`);
    const structure = JSON.parse(readFileSync(path.join(dir, 'structure.json'), 'utf8'));
    delete structure.profile.names;
    structure.profile.parties = ['Lucent Technologies Inc.', 'Technologies Inc.', 'Lucent Co', 'Lucent', 'mPhase'];
    writeFileSync(path.join(dir, 'structure.json'), JSON.stringify(structure));
    rmSync(path.join(dir, 'events.json'));
    await engine.openCases.release(caseId);
    const people = (await eventOf()).people;
    expect(people).toContain('mPhase Technologies Inc.');
    expect(people).not.toContain('Technologies Inc.');
  });

  it('a case set to day first reads 03/04/2020 as 3 April, and its chronology follows at once', async () => {
    const { call, caseId, drop } = await ingestedCase('London lease', {});
    // Never set, a case follows this computer's locale; set, it keeps what it was told.
    expect((await call('cases.get', { case_id: caseId })).dates).toEqual({ day_first: localeDayFirst() });
    expect((await call('cases.setDateOrder', { case_id: caseId, day_first: false })).dates).toEqual({
      day_first: false,
    });
    writeFileSync(path.join(drop, 'letter.txt'), 'The tenant vacated the flat on 03/04/2020.\n');
    await call('ingest.start', { case_id: caseId, paths: [drop] });
    expect((await call('tools.timeline', { case_id: caseId })).events).toMatchObject([
      { date: '2020-03-04', ambiguous: true },
    ]);
    expect((await call('cases.setDateOrder', { case_id: caseId, day_first: true })).dates).toEqual({ day_first: true });
    expect((await call('tools.timeline', { case_id: caseId })).events).toMatchObject([
      { date: '2020-04-03', ambiguous: true },
    ]);
    // A file added now is read day first by the reader too.
    writeFileSync(path.join(drop, 'notice.txt'), 'Notice was served on 05/06/2020.\n');
    await call('ingest.start', { case_id: caseId, paths: [drop] });
    expect((await call('tools.timeline', { case_id: caseId })).events.map((e) => e.date)).toEqual([
      '2020-04-03',
      '2020-06-05',
    ]);
  });
});
