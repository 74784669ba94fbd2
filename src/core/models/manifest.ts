/**
 * The recommended models: `manifest.json` in the app's bundled `models/` folder (the list
 * `npm run models:fetch` reads), shown in Settings and `models list` with what each needs. Read
 * only from disk; nothing here touches the network.
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import type { ModelKind, RecommendedModel } from '../../shared/contract/models';

const ManifestEntry = z.object({
  id: z.string().min(1).max(128),
  kind: z.enum(['chat', 'embedding', 'reranker']),
  recommended: z.boolean().default(false),
  description: z.string().max(2000).default(''),
  license: z.string().max(200).nullable().default(null),
  minRamGB: z.number().positive().nullable().default(null),
  approxSizeMB: z.number().positive().nullable().default(null),
  source: z
    .object({
      type: z.string(),
      files: z.array(z.object({ path: z.string(), url: z.string().optional() }).loose()).optional(),
    })
    .loose()
    .optional(),
});

const Manifest = z.object({ models: z.array(z.unknown()).default([]) });

export const MANIFEST_FILE = 'manifest.json';

/** A single-file GGUF entry's URL (what `models download` accepts), else null. */
function downloadUrl(entry: z.infer<typeof ManifestEntry>): string | null {
  const files = entry.source?.type === 'url' ? (entry.source.files ?? []) : [];
  return files.length === 1 && files[0]!.path.toLowerCase().endsWith('.gguf') && files[0]!.url?.startsWith('https://')
    ? files[0]!.url
    : null;
}

/** The manifest's models, recommended first (chat, then embedding, then reranker); [] when there is no readable manifest. */
export async function readRecommended(dirs: string[], installedIds: Set<string>): Promise<RecommendedModel[]> {
  for (const dir of dirs) {
    const raw = await fs.readFile(path.join(dir, MANIFEST_FILE), 'utf8').catch(() => null);
    if (raw === null) continue;
    let parsed: z.infer<typeof Manifest>;
    try {
      parsed = Manifest.parse(JSON.parse(raw));
    } catch {
      return [];
    }
    const order: Record<ModelKind, number> = { chat: 0, embedding: 1, reranker: 2 };
    return parsed.models
      .map((m) => ManifestEntry.safeParse(m))
      .filter((r) => r.success)
      .map(
        ({ data: e }): RecommendedModel => ({
          id: e.id,
          kind: e.kind,
          recommended: e.recommended,
          description: e.description,
          license: e.license,
          min_ram_gb: e.minRamGB,
          approx_size_mb: e.approxSizeMB,
          installed:
            installedIds.has(e.id) || [...installedIds].some((id) => id.toLowerCase().startsWith(e.id.toLowerCase())),
          download_url: downloadUrl(e),
        }),
      )
      .sort((a, b) => Number(b.recommended) - Number(a.recommended) || order[a.kind] - order[b.kind]);
  }
  return [];
}
