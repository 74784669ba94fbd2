import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { Engine } from '../../src/core/engine';
import { parseFile } from '../../src/core/reader/parse';
import { CaseStore } from '../../src/core/documents/case-store';
import { profileOf } from '../../src/core/text/profile';
import { structureOf } from '../../src/core/text/structure';
import { DocumentRouter, type RoutableDocument } from '../../src/core/retrieval/routing';
import { ChunkStore } from '../../src/core/retrieval/store';
import { corpusDir, cuadPdf, CUAD_SMALL, tempHome } from '../helpers/home';
import { eml } from '../helpers/mail';

/**
 * The names a lawyer gives documents, read from real files by the real parse path: an opinion by
 * its case name (with its court, docket number and date decided) and typed an opinion, an order
 * as an order, a Word template by its title (never a signature-block word), an email by its subject.
 */
const OPINIONS = path.join(corpusDir, 'freelaw-courtlistener/Documents/PDF to HTML Analysis and Testing');
const GILDERNEW = path.join(OPINIONS, '2ndCircuit-08-6301-cv_opn.pdf');
const WILSON = path.join(OPINIONS, '8thCircuit-071306U.pdf');
const TEMPLATES = path.join(corpusDir, 'open-agreements/templates');

async function named(file: string, bytes: Uint8Array = new Uint8Array(readFileSync(file))) {
  const name = path.basename(file);
  const parsed = await parseFile({ bytes, name, maxBytes: 200 << 20 });
  const doc = parsed.doc!;
  const structure = structureOf(doc.text, doc.index, name, doc.html, { subject: doc.email?.subject });
  return { type: parsed.docType, profile: structure.profile, sections: structure.sections, date: parsed.docDate };
}

describe('court opinions and orders are named by their caption', () => {
  it('a Second Circuit opinion: "Gildernew v. Gantner", its court, docket and date decided; an opinion, not a pleading', async () => {
    const { type, profile, sections, date } = await named(GILDERNEW);
    expect(profile).toMatchObject({
      title: 'Gildernew v. Gantner',
      short_name: 'Gildernew v. Gantner',
      court: 'United States Court of Appeals for the Second Circuit',
      docket: '08-6301-cv',
      decided: '2010-02-04',
    });
    expect(type).toBe('opinion');
    // Dated by the date decided, not by the first date in it (argued, January 25, 2010).
    expect(date).toBe('2010-02-04');
    // The outline's title (the court's header lines) carries the case name too: search results' document_title.
    expect(sections.find((s) => s.kind === 'title')?.title).toBe('Gildernew v. Gantner');
    expect(profile.parties.slice(0, 2)).toEqual(['Gildernew', 'Gantner']);
  });

  it('an Eighth Circuit per curiam: "United States v. Wilson", not "FOR THE EIGHTH CIRCUIT"', async () => {
    const { type, profile } = await named(WILSON);
    expect(profile).toMatchObject({
      title: 'United States v. Wilson',
      court: 'United States Court of Appeals for the Eighth Circuit',
      docket: '07-1306',
      decided: '2010-02-05',
    });
    expect(type).toBe('opinion');
  });

  it('an order in a lawyer\'s discipline matter: "In re Liebowitz", an order', async () => {
    const { type, profile } = await named(path.join(corpusDir, 'freelaw-doctor/recap_documents/ca10_010110462922.pdf'));
    expect(profile.title).toBe('In re Liebowitz');
    expect(type).toBe('order');
  });

  it("a party's motion under the caption stays a pleading", async () => {
    const { type } = await named(path.join(corpusDir, 'freelaw-doctor/recap_documents/ca9_19.pdf'));
    expect(type).toBe('pleading');
  });
});

describe('contracts are named by the title they give themselves', () => {
  const part = (p: string) => path.join(corpusDir, 'cuad/full_contract_pdf', p);
  it('a title in capitals broken over two lines, or whose last line the outline took, is named whole; "Form of" is no part of it', async () => {
    const revmed = await named(
      part('Part_I/Development/RevolutionMedicinesInc_20200117_S-1_EX-10.1_11948417_EX-10.1_Development Agreement.pdf'),
    );
    expect(revmed.profile.short_name).toBe('COLLABORATIVE RESEARCH, DEVELOPMENT AND COMMERCIALIZATION AGREEMENT');
    const healthgate = await named(
      part('Part_II/Hosting/HEALTHGATEDATACORP_11_24_1999-EX-10.1-HOSTING AND MANAGEMENT AGREEMENT (1).pdf'),
    );
    expect(healthgate.profile.short_name).toBe(
      'ELECTRONIC JOURNAL SOFT WARE DEVELOPMENT, HOSTING AND MANAGEMENT AGREEMENT',
    );
    const verizon = await named(
      part('Part_I/Service/VerizonAbsLlc_20200123_8-K_EX-10.4_11952335_EX-10.4_Service Agreement.pdf'),
    );
    expect(verizon.profile.short_name).toBe('TRANSFER AND SERVICING AGREEMENT');
  });

  it('a name kept in lower case ("e-business Hosting Agreement") is a title, not the file name', async () => {
    const bluefly = await named(
      part('Part_III/Hosting/BLUEFLYINC_03_27_2002-EX-10.27-e-business Hosting Agreement.PDF'),
    );
    expect(bluefly.profile.short_name).toBe('e-business Hosting Agreement');
  });

  it('a merger agreement laid out in columns is named "Agreement and Plan of Merger" and typed a contract, whatever its parties are called', async () => {
    const maud = path.join(corpusDir, 'legalbench-rag/corpus/maud');
    const glu = await named(path.join(maud, 'Glu Mobile Inc._Electronic Arts Inc..txt'));
    expect(glu.profile.short_name).toBe('Agreement and Plan of Merger');
    expect(glu.type).toBe('contract');
    // "Varian Medical Systems" and "Siemens Healthineers" in its name do not make it a medical record.
    const varian = await named(path.join(maud, 'Varian Medical Systems, Inc._Siemens Healthineers AG.txt'));
    expect(varian.profile.short_name).toBe('AGREEMENT AND PLAN OF MERGER');
    expect(varian.type).toBe('contract');
    // "EXHIBIT 2.1 - " is the filing's number, not the title.
    const progressive = await named(
      path.join(maud, 'Protective Insurance Corporation_The Progressive Corporation.txt'),
    );
    expect(progressive.profile.short_name).toBe('AGREEMENT AND PLAN OF MERGER');
  });

  it('an NDA is named by the title it opens with, never by a recital heading or a heading pages later', async () => {
    const ndas = path.join(corpusDir, 'legalbench-rag/corpus/contractnli');
    // "NON-DISCLOSURE AGREEMENT BETWEEN LONDON SCHOOL OF …": the title, not its parties or "AGREED TERMS".
    const lse = await named(path.join(ndas, 'IGC-Non-Disclosure-Agreement-LSE-Sample.txt'));
    expect(lse.profile.short_name).toBe('NON-DISCLOSURE AGREEMENT');
    // The heading "NOW THE PARTIES HEREBY AGREE AS FOLLOWS" (or "WHEREAS") names no document.
    const kenway = await named(path.join(ndas, 'Kenway-NDA-Form-Blank.txt'));
    expect(kenway.profile.short_name).not.toMatch(/AGREE AS FOLLOWS/);
    const artop = await named(path.join(ndas, 'NDA-Artop-Inno-2017.txt'));
    expect(artop.profile.short_name).not.toMatch(/WHEREAS/i);
    // The opening title, not the shorter "NON-DISCLOSURE AGREEMENT" heading further down.
    const nebraska = await named(
      path.join(
        ndas,
        'NU%20Confidentiality%20Non-Disclosure%20%20Information%20Security%20Agreement%20Final%20....txt',
      ),
    );
    expect(nebraska.profile.short_name).toBe(
      'CONFIDENTIALITY, NON-DISCLOSURE AND COMPUTER ACCESS (SECURITY) AGREEMENT',
    );
    // A title in capitals broken after a slash: "NONDISCLOSURE AGREEMENT /" "CONDUCT POLICY".
    const vmware = await named(path.join(ndas, 'vmw-certification-conduct-policy.txt'));
    expect(vmware.profile.short_name).toBe('NONDISCLOSURE AGREEMENT / CONDUCT POLICY');
  });

  it('a filed exhibit whose text cannot be read is named by the title its file name gives after the exhibit number', () => {
    const garbled = 'COMPLETION AND LIOUDm MAINTENANCE 4GRFFMFST THIS COMPLEHON AGREEMENT {5 made';
    const name = 'PRIMEENERGYRESOURCESCORP_04_02_2007-EX-10.28-COMPLETION AND LIQUIDITY MAINTENANCE AGREEMENT.PDF';
    expect(profileOf(garbled, [], name).title).toBe('COMPLETION AND LIQUIDITY MAINTENANCE AGREEMENT');
    expect(profileOf(garbled, [], 'Smith lease.pdf').title).toBe('Smith lease');
  });
});

describe('Word files and emails', () => {
  it('a Word template is named by its title line, not by its signature block ("PARTY 1", "CONTRACTOR")', async () => {
    const nda = await named(path.join(TEMPLATES, 'common-paper-cc-by-4.0/common-paper-mutual-nda/template.docx'));
    expect(nda.profile.title).toBe('Mutual Non-Disclosure Agreement');
    expect(nda.type).toBe('contract');
    const ic = await named(
      path.join(TEMPLATES, 'common-paper-cc-by-4.0/common-paper-independent-contractor-agreement/template.docx'),
    );
    expect(ic.profile.title).toBe('Independent Contractor Agreement');
  });

  it("a Word file's core properties title names it where it has one", async () => {
    const { profile } = await named(path.join(TEMPLATES, 'bonterms-cc0-1.0/bonterms-mutual-nda/template.docx'));
    expect(profile.title).toBe('Example Cover Page for Bonterms Mutual NDA');
  });

  it('an email is named by its subject', async () => {
    const mail = await eml({
      from: 'Dana Price <dprice@waternow.example>',
      to: 'mellis@bestev.example',
      subject: 'Re: Hydraspin distributor territory',
      date: new Date('2019-12-02T15:04:00Z'),
      text: 'Mark,\n\nThe territory covers Texas and Oklahoma only.\n\nRegards,\nDana',
    });
    const { type, profile } = await named('territory.eml', new Uint8Array(mail));
    expect(profile).toMatchObject({
      title: 'Re: Hydraspin distributor territory',
      short_name: 'Re: Hydraspin distributor territory',
    });
    expect(type).toBe('correspondence');
  });
});

describe('routing: a question that names the case', () => {
  it('"What did the court hold in Gildernew v. Gantner?" focuses on the Second Circuit opinion', async () => {
    const files = [
      GILDERNEW,
      WILSON,
      path.join(OPINIONS, '11thCircuit-200814991.pdf'),
      path.join(OPINIONS, '7thCircuit-UZ1FFY4T.pdf'),
      cuadPdf(CUAD_SMALL.datacall),
      cuadPdf(CUAD_SMALL.watchit),
    ];
    const docs: RoutableDocument[] = [];
    for (const f of files) {
      const { profile, date } = await named(f);
      docs.push({
        file_id: path.basename(f),
        file_name: path.basename(f),
        title: profile.title,
        parties: profile.parties,
        date,
      });
    }
    const routing = await new DocumentRouter(docs).route('What did the court hold in Gildernew v. Gantner?');
    expect(routing?.focus.map((d) => d.file_id)).toEqual([path.basename(GILDERNEW)]);
    expect(routing?.focus[0]?.title).toBe('Gildernew v. Gantner');
  });
});

describe('reindex names an existing case again from its stored text', () => {
  it('a case read by older rules gets the case name, court and type, without its originals (no parsing)', async () => {
    const home = tempHome('casefile-names-');
    const engine = await Engine.open({ home, ingest: { concurrency: 1, ocr: false } });
    try {
      const caseId = (await engine.router.call('cases.create', { name: 'Appeals' })).id;
      const drop = path.join(home, 'drop');
      mkdirSync(drop, { recursive: true });
      copyFileSync(GILDERNEW, path.join(drop, 'gildernew.pdf'));
      await engine.router.call('ingest.start', { case_id: caseId, paths: [drop] });
      const caseDir = engine.cases.caseDir(caseId);
      const listed = async () => (await engine.router.call('files.list', { case_id: caseId })).files[0]!;
      const fileId = (await listed()).id;
      expect(await listed()).toMatchObject({
        title: 'Gildernew v. Gantner',
        type: 'opinion',
        court: 'United States Court of Appeals for the Second Circuit',
        docket: '08-6301-cv',
        decided: '2010-02-04',
        date: '2010-02-04',
      });

      // As the rules before names stored it: the court's header line as title, typed a pleading.
      const structureFile = path.join(caseDir, 'docs', fileId, 'v1', 'structure.json');
      const stored = JSON.parse(readFileSync(structureFile, 'utf8')) as { profile: Record<string, unknown> };
      const { short_name: _s, court: _c, docket: _d, decided: _x, names: _n, ...older } = stored.profile;
      writeFileSync(
        structureFile,
        JSON.stringify({ ...stored, profile: { ...older, title: 'FOR THE SECOND CIRCUIT' } }),
      );
      const store = new CaseStore(caseDir);
      await store.change((tx) => {
        tx.edit(fileId)!.versions[0]!.doc_type = 'pleading';
        tx.edit(fileId)!.versions[0]!.doc_date = '2010-01-25';
      });
      await engine.openCases.release(caseId);
      // Reading the file again is impossible: its original is gone.
      const sha = (await listed()).versions[0]!.sha256;
      await rm(store.blobPath(sha));
      expect(await listed()).toMatchObject({ title: 'FOR THE SECOND CIRCUIT', type: 'pleading', date: '2010-01-25' });

      const r = await engine.router.call('index.reindex', { case_id: caseId });
      expect(r.versions).toBe(1);
      expect(await listed()).toMatchObject({
        title: 'Gildernew v. Gantner',
        short_name: 'Gildernew v. Gantner',
        type: 'opinion',
        court: 'United States Court of Appeals for the Second Circuit',
        decided: '2010-02-04',
        date: '2010-02-04',
      });
      // Every search passage carries the case name as its context.
      await engine.openCases.release(caseId);
      const chunks = await ChunkStore.open(caseDir);
      try {
        const rows = await chunks.count();
        expect(rows).toBeGreaterThan(0);
        expect(await chunks.count("context LIKE 'Gildernew v. Gantner%'")).toBe(rows);
      } finally {
        chunks.close();
      }
      // Done: a second reindex has nothing left to do.
      expect((await engine.router.call('index.reindex', { case_id: caseId })).versions).toBe(0);
    } finally {
      await engine.close();
    }
  });
});
