/**
 * electron-builder.yml is validated with electron-builder's own loader and schema (the same code
 * `npm run dist` runs first), since packaging itself needs the Electron download.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../helpers/home';

const require = createRequire(import.meta.url);
type Config = Record<string, unknown> & {
  linux?: { target?: unknown };
  mac?: { target?: unknown };
  win?: { target?: unknown };
  extraResources?: { from: string; to: string }[];
  files?: string[];
  asarUnpack?: string[];
};
const { getConfig, validateConfiguration } = require('app-builder-lib/out/util/config/config.js') as {
  getConfig(projectDir: string, configPath: string | null, fromOptions: null): Promise<Config>;
  validateConfiguration(config: Config, logger: unknown): Promise<void>;
};
const { DebugLogger } = require('builder-util') as { DebugLogger: new (enabled: boolean) => unknown };

describe('electron-builder.yml', () => {
  it('passes electron-builder schema validation', async () => {
    const config = await getConfig(repoRoot, null, null);
    await expect(validateConfiguration(config, new DebugLogger(false))).resolves.toBeUndefined();
  });

  it('targets AppImage + deb, dmg and nsis, and ships models/ as extra resources', async () => {
    const config = await getConfig(repoRoot, null, null);
    expect(config.linux?.target).toEqual(['AppImage', 'deb']);
    expect(config.mac?.target).toEqual(['dmg']);
    expect(config.win?.target).toEqual(['nsis']);
    expect(config.extraResources).toContainEqual(expect.objectContaining({ from: 'models', to: 'models' }));
    // Sources, tests and bench stay out of the package; the built app (out/) goes in.
    expect(JSON.stringify(config.files)).toMatch(/!\{src,test,bench/);
    expect(JSON.stringify(config.files)).not.toMatch(/!out|!\{out/);
  });

  it('OCR runs from a packaged app: the tesseract.js worker script, its wasm and the language data are unpacked from the asar', async () => {
    const { minimatch } = require('minimatch') as { minimatch: (p: string, pattern: string) => boolean };
    const config = await getConfig(repoRoot, null, null);
    const unpacked = (file: string) => (config.asarUnpack ?? []).some((pattern) => minimatch(file, pattern));
    for (const file of [
      'node_modules/tesseract.js/src/worker-script/node/index.js',
      'node_modules/tesseract.js-core/tesseract-core-lstm.wasm',
      'node_modules/@tesseract.js-data/eng/4.0.0_best_int/eng.traineddata.gz',
    ]) {
      expect(require.resolve(`../../${file}`), file).toBeTruthy();
      expect(unpacked(file), file).toBe(true);
    }
    expect(unpacked('node_modules/react/index.js')).toBe(false);
  });

  it('fuses: the packaged app ignores NODE_OPTIONS and --inspect, loads only its own checked app.asar, and runs as Node only while the readers need it', async () => {
    const config = await getConfig(repoRoot, null, null);
    const fuses = config.electronFuses as Record<string, boolean>;
    expect(fuses).toMatchObject({
      enableCookieEncryption: true,
      enableNodeOptionsEnvironmentVariable: false,
      enableNodeCliInspectArguments: false,
      enableEmbeddedAsarIntegrityValidation: true,
      onlyLoadAppFromAsar: true,
    });
    expect(config.asar).toBe(true);
    // Run-as-Node stays on exactly as long as the ingest readers are forked with ELECTRON_RUN_AS_NODE.
    const forksAsNode = /ELECTRON_RUN_AS_NODE/.test(
      readFileSync(path.join(repoRoot, 'src/core/util/worker-start.ts'), 'utf8'),
    );
    expect(fuses.runAsNode).toBe(forksAsNode);
    // electron-builder turns the keys into the binary's fuse wire (the same code `npm run dist` runs).
    const { PlatformPackager } = require('app-builder-lib') as {
      PlatformPackager: { prototype: { generateFuseConfig(f: unknown): Promise<Record<string, unknown>> } };
    };
    const { FuseV1Options } = require('@electron/fuses') as { FuseV1Options: Record<string, number> };
    const wire = await PlatformPackager.prototype.generateFuseConfig.call({}, fuses);
    expect(wire[FuseV1Options.EnableNodeOptionsEnvironmentVariable!]).toBe(false);
    expect(wire[FuseV1Options.EnableNodeCliInspectArguments!]).toBe(false);
    expect(wire[FuseV1Options.OnlyLoadAppFromAsar!]).toBe(true);
    expect(wire[FuseV1Options.EnableEmbeddedAsarIntegrityValidation!]).toBe(true);
  });

  it('a malformed config is refused – the validator is not blind', async () => {
    const config = await getConfig(repoRoot, null, null);
    await expect(
      validateConfiguration(
        { ...config, linux: { target: 'AppImage', notAnOption: 1 } as Config['linux'] },
        new DebugLogger(false),
      ),
    ).rejects.toThrow(/does not match the API schema/);
  });
});
