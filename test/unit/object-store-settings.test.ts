/**
 * The home's object storage settings (`object-store.json`): what a firm's administrator writes,
 * what is refused and why, where the key comes from, and where a case's index then lives.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { readConfig } from '../../src/core/config';
import { Engine } from '../../src/core/engine';
import { readObjectStore } from '../../src/core/cases/index';
import { tempHome } from '../helpers/home';

const KEY = { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'wJalrXUtnFEMI' };
const write = (home: string, name: string, value: unknown) =>
  writeFileSync(path.join(home, name), typeof value === 'string' ? value : JSON.stringify(value));

describe('object storage settings', () => {
  it('no settings file: no object storage, every case in its folder', async () => {
    const home = tempHome();
    expect(await readObjectStore(home, KEY)).toBeNull();
    const engine = await Engine.open({ home });
    try {
      const { id } = await engine.router.call('cases.create', { name: 'Local' });
      expect(await engine.cases.indexLocation(id)).toEqual({ uri: path.join(home, 'cases', id, 'lancedb') });
    } finally {
      await engine.close();
    }
  });

  it('the key from the environment; defaults for region, prefix and path-style addresses', async () => {
    const home = tempHome();
    write(home, 'object-store.json', { endpoint: 'http://127.0.0.1:8333/', bucket: 'firm-cases' });
    const env = { CASEFILE_S3_ACCESS_KEY_ID: KEY.accessKeyId, CASEFILE_S3_SECRET_ACCESS_KEY: KEY.secretAccessKey };
    expect(await readObjectStore(home, readConfig(env).s3Credentials)).toEqual({
      endpoint: 'http://127.0.0.1:8333',
      region: 'us-east-1',
      bucket: 'firm-cases',
      prefix: 'casefile',
      pathStyle: true,
      ...KEY,
    });
  });

  it('the key from an AWS-style credentials file the settings name', async () => {
    const home = tempHome();
    write(home, 'object-store.json', {
      endpoint: 'https://s3.firm.example',
      bucket: 'firm-cases',
      prefix: 'matters/2026',
      pathStyle: false,
      credentialsFile: 'keys.ini',
    });
    write(home, 'keys.ini', '# the firm\n[default]\naws_access_key_id = AKID2\naws_secret_access_key = s3cr3t\n');
    expect(await readObjectStore(home)).toMatchObject({
      prefix: 'matters/2026',
      pathStyle: false,
      accessKeyId: 'AKID2',
      secretAccessKey: 's3cr3t',
    });
  });

  it('refuses settings it cannot use, saying which and why', async () => {
    const home = tempHome();
    const refused = async () => (await readObjectStore(home, KEY).catch((e: Error) => e)) as Error;
    write(home, 'object-store.json', '{ not json');
    expect((await refused()).message).toMatch(/object-store\.json are not valid JSON/);
    write(home, 'object-store.json', { endpoint: 's3.firm.example', bucket: 'firm-cases' });
    expect((await refused()).message).toMatch(/“endpoint” must be http\(s\):\/\/host\[:port\]/);
    write(home, 'object-store.json', { endpoint: 'http://h:1', bucket: 'Firm_Cases' });
    expect((await refused()).message).toMatch(/“bucket” must be a valid bucket name/);
    write(home, 'object-store.json', { endpoint: 'http://h:1', bucket: 'firm', secret: 'x' });
    expect((await refused()).message).toMatch(/not valid/);
    write(home, 'object-store.json', { endpoint: 'http://h:1', bucket: 'firm' });
    const noKey = (await readObjectStore(home).catch((e: Error) => e)) as Error;
    expect(noKey.message).toMatch(/give no credentials: set CASEFILE_S3_ACCESS_KEY_ID/);
  });

  it('bad settings stop new cases with the reason; cases already in their folder keep working', async () => {
    const home = tempHome();
    const engine = await Engine.open({ home });
    const { id } = await engine.router.call('cases.create', { name: 'Before' });
    await engine.close();
    write(home, 'object-store.json', { endpoint: 'http://127.0.0.1:1', bucket: 'firm' });
    const again = await Engine.open({ home, env: {} });
    try {
      await expect(again.router.call('cases.create', { name: 'After' })).rejects.toThrow(/give no credentials/);
      expect((await again.cases.indexLocation(id)).uri).toBe(path.join(home, 'cases', id, 'lancedb'));
      expect((await again.router.call('cases.list', {})).cases.map((c) => c.name)).toEqual(['Before']);
    } finally {
      await again.close();
    }
  });
});
