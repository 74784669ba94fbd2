/**
 * What the verifier needs to know of one case: each cited document's text with its page starts,
 * title and own names (parties, file name), the case's embedding model for "close in meaning",
 * and which other document a name points at (for the reason "the passage is from X, not Y").
 */
import type { SourceDoc, SourceText, VerifyOptions } from '../citations/verify';
import { embeddingSimilarity } from '../citations/verify';
import type { CasesPort } from '../ports';
import type { ToolsPorts } from '../tools/index';
import { caseDocumentSource } from '../tools/source';
import { readableFileName } from '../util/names';

export interface CaseVerifier {
  sourceText: SourceText;
  options: VerifyOptions;
}

export async function caseVerifier(
  ports: ToolsPorts & { cases: Pick<CasesPort, 'readMeta'> },
  caseId: string,
  signal?: AbortSignal,
): Promise<CaseVerifier> {
  const docs = caseDocumentSource(await ports.openCases.open(caseId));
  /** name + cited file → the other document it names (null: none). */
  const names = new Map<string, string | null>();
  const sourceText: SourceText = async (fileId, version): Promise<SourceDoc | null> => {
    const text = await docs.readText(fileId, version);
    if (!text) return null;
    const profile = await docs.readProfile(fileId, version).catch(() => null);
    const file = (await listed()).find((f) => f.id === fileId)?.name ?? '';
    // Cited by its short name ("Gildernew v. Gantner, p. 4"; a contract's title without its parties).
    const title = profile?.short_name || profile?.title || (file ? readableFileName(file) : '');
    return {
      text: text.text,
      pageStarts: text.pageStarts,
      ...(text.ocrPages ? { ocrPages: text.ocrPages } : {}),
      ...(text.pageLabels ? { pageLabels: text.pageLabels } : {}),
      ...(text.pageBates ? { pageBates: text.pageBates } : {}),
      ...(text.transcript ? { transcript: text.transcript } : {}),
      ...(text.exhibit ? { exhibit: text.exhibit } : {}),
      ...(title ? { title } : {}),
      names: [profile?.title ?? title, ...(profile?.parties ?? []), file].join(' \n '),
    };
  };
  let files: ReturnType<typeof docs.listFiles> | null = null;
  const listed = () => (files ??= docs.listFiles().catch(() => []));

  // Titles and names of every document, read once per turn and only when a name is missing.
  let catalog: Promise<Array<{ id: string; title: string; names: string }>> | null = null;
  const documents = () =>
    (catalog ??= listed().then((all) =>
      Promise.all(
        all.map(async (f) => {
          const p = await docs.readProfile(f.id, f.version).catch(() => null);
          const title = p?.short_name || p?.title || readableFileName(f.name);
          return {
            id: f.id,
            title,
            names: `${p?.title ?? title} ${(p?.parties ?? []).join(' ')} ${f.name}`.toLowerCase(),
          };
        }),
      ),
    ));
  const documentNamed = async (name: string, notFileId: string): Promise<string | null> => {
    const key = `${name}\u0000${notFileId}`;
    if (!names.has(key)) {
      const re = new RegExp(
        `(?:^|[^\\p{L}\\p{N}])${name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?![\\p{L}\\p{N}])`,
        'u',
      );
      const hit = (await documents()).find((d) => d.id !== notFileId && re.test(d.names));
      names.set(key, hit ? `the ${hit.title}` : null);
    }
    return names.get(key) ?? null;
  };

  const options: VerifyOptions = { documentNamed };
  const meta = await ports.cases.readMeta(caseId);
  const models = await ports.queryModels();
  const load = await models.embedder(meta.embedding?.modelId ?? null).catch(() => null);
  if (load?.ok && (!meta.embedding || load.embedder.modelId === meta.embedding.modelId)) {
    const embedder = load.embedder;
    options.similarity = embeddingSimilarity({ embed: (texts, s) => models.embedTexts(embedder, texts, s) }, signal);
  }
  return { sourceText, options };
}
