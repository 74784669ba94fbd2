import { describe, expect, it } from 'vitest';
import { Engine } from '../../src/core/engine';
import { Router } from '../../src/core/router/router';
import { buildBridge, type IpcRendererLike } from '../../src/preload/bridge';
import {
  bridgeExtraKeys,
  IPC_CHOOSE_FOLDER,
  IPC_CHOOSE_MATTER,
  IPC_CHOOSE_MODEL,
  IPC_INVOKE,
} from '../../src/shared/bridge';
import { contract, opNames } from '../../src/shared/contract/index';
import { CasefileError, toApiError } from '../../src/shared/errors';
import { tempHome } from '../helpers/home';

/** A value of the wrong type for any field: every schema must refuse it with a field-level message. */
const GARBAGE = { __unexpected__: { nested: [1, 2, 3] } };

describe('contract', () => {
  it('every operation – has a schema and a summary, and the engine has a handler for it', async () => {
    const engine = await Engine.open({ home: tempHome() });
    expect(opNames.length).toBeGreaterThan(5);
    for (const name of opNames) {
      expect(typeof contract[name].summary, name).toBe('string');
      expect(contract[name].input, name).toBeDefined();
    }
    expect(engine.router.missing()).toEqual([]);
    // Features load on first use; each must then handle exactly the operations it reserved.
    await engine.router.loadAll();
    expect(engine.router.missing()).toEqual([]);
    await engine.close();
  });

  it('every operation – rejects malformed input with a message naming the field', async () => {
    const engine = await Engine.open({ home: tempHome() });
    for (const name of opNames) {
      const err = await engine.router.call(name, GARBAGE).then(
        () => null,
        (e: unknown) => e,
      );
      expect(err, `${name} accepted garbage`).toBeInstanceOf(CasefileError);
      const e = err as CasefileError;
      expect(e.code, name).toBe('invalid_input');
      expect(e.fields?.length, name).toBeGreaterThan(0);
      expect(e.message, name).toMatch(/Invalid input to /);
      for (const f of e.fields ?? []) expect(e.message).toContain(f.field);
    }
    await engine.close();
  });

  it('cases.create – names the field and the rule', async () => {
    const engine = await Engine.open({ home: tempHome() });
    await expect(engine.router.call('cases.create', { name: '   ' })).rejects.toMatchObject({
      code: 'invalid_input',
      fields: [{ field: 'name', message: 'Enter a name.' }],
    });
    await expect(engine.router.call('cases.create', { name: 'x'.repeat(201) })).rejects.toMatchObject({
      fields: [{ field: 'name', message: 'A name can be at most 200 characters long.' }],
    });
    await expect(engine.router.call('cases.create', {})).rejects.toMatchObject({ fields: [{ field: 'name' }] });
    await expect(engine.router.call('cases.get', { case_id: '../../etc' })).rejects.toMatchObject({
      fields: [{ field: 'case_id' }],
    });
    // 200 emoji are 200 characters, not 400 UTF-16 units.
    await expect(engine.router.call('cases.create', { name: '⚖'.repeat(200) })).resolves.toMatchObject({
      name: '⚖'.repeat(200),
    });
    await engine.close();
  });

  it('router – refuses duplicate handlers, unknown operations and names outside the contract', async () => {
    const router = new Router();
    router.register({ 'cases.list': async () => ({ cases: [] }) });
    expect(() => router.register({ 'cases.list': async () => ({ cases: [] }) })).toThrow(/duplicate/);
    expect(() => router.register({ 'no.such': async () => null } as never)).toThrow(/not an operation/);
    await expect(router.call('no.such', {})).rejects.toMatchObject({ code: 'invalid_input' });
    await expect(router.call('cases.get', { case_id: 'x' })).rejects.toMatchObject({ code: 'unavailable' });
  });

  it('router – an unknown operation carries the reason unknown_operation, which does not cross the boundary', async () => {
    const err = await new Router().call('no.such', {}).then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(CasefileError);
    expect(err).toMatchObject({ code: 'invalid_input', reason: 'unknown_operation' });
    expect(toApiError(err)).toEqual({ code: 'invalid_input', message: 'Unknown operation "no.such".' });
  });

  it('router – a lazy feature loads once, on the first valid call of one of its operations', async () => {
    const router = new Router();
    let loads = 0;
    router.registerLazy(['cases.list', 'cases.get'], async () => {
      loads++;
      return {
        'cases.list': async () => ({ cases: [] }),
        'cases.get': async () => {
          throw new CasefileError('not_found', 'No such case.');
        },
      };
    });
    expect(router.missing()).not.toContain('cases.list');
    expect(() =>
      router.register({
        'cases.get': async () => {
          throw new Error('unused');
        },
      }),
    ).toThrow(/duplicate/);
    await expect(router.call('cases.get', { case_id: '../x' })).rejects.toMatchObject({ code: 'invalid_input' });
    expect(loads).toBe(0);
    await Promise.all([router.call('cases.list', {}), router.call('cases.list', {})]);
    await expect(router.call('cases.get', { case_id: 'x' })).rejects.toMatchObject({ code: 'not_found' });
    expect(loads).toBe(1);
  });

  it('router – a lazy feature that loads other operations than it reserved fails clearly; a failed load is retried', async () => {
    const router = new Router();
    router.registerLazy(['cases.list', 'cases.get'], async () => ({ 'cases.list': async () => ({ cases: [] }) }));
    await expect(router.call('cases.list', {})).rejects.toThrow(
      /handles \[cases\.list\], not the reserved \[cases\.get, cases\.list\]/,
    );
    let attempts = 0;
    const flaky = new Router();
    flaky.registerLazy(['cases.list'], async () => {
      if (attempts++ === 0) throw new Error('native module failed to load');
      return { 'cases.list': async () => ({ cases: [] }) };
    });
    await expect(flaky.call('cases.list', {})).rejects.toThrow(/native module failed to load/);
    await expect(flaky.call('cases.list', {})).resolves.toEqual({ cases: [] });
  });
});

describe('preload bridge', () => {
  function fakeIpc() {
    const calls: unknown[][] = [];
    const ipc: IpcRendererLike = {
      invoke: async (...args) => {
        calls.push(args);
        return { ok: true, value: 'r' };
      },
      on: () => undefined,
      removeListener: () => undefined,
    };
    return { ipc, calls };
  }

  it('exposes exactly the contract operations plus on/pathForFile — no Node surface', () => {
    const bridge = buildBridge(fakeIpc().ipc, { getPathForFile: () => '/x' });
    expect(Object.keys(bridge).sort()).toEqual([...opNames, ...bridgeExtraKeys].sort());
    for (const key of Object.keys(bridge))
      expect(typeof (bridge as unknown as Record<string, unknown>)[key]).toBe('function');
    for (const forbidden of ['require', 'process', 'ipcRenderer', 'send', 'invoke', 'fs'])
      expect(bridge).not.toHaveProperty(forbidden);
  });

  it('forwards an operation over the single invoke channel and refuses unknown events', async () => {
    const { ipc, calls } = fakeIpc();
    const bridge = buildBridge(ipc, { getPathForFile: () => '/x' });
    await expect(bridge['cases.list']({})).resolves.toEqual({ ok: true, value: 'r' });
    expect(calls).toEqual([[IPC_INVOKE, 'cases.list', {}]]);
    expect(() => bridge.on('not.an.event' as never, () => {})).toThrow(/Unknown event/);
  });

  it('asks main for the system dialogs on their own channels, passing only what the page chose', async () => {
    const { ipc, calls } = fakeIpc();
    const bridge = buildBridge(ipc, { getPathForFile: () => '/x' });
    await bridge.chooseModel({ kind: 'file' });
    await bridge.chooseFolder({ purpose: 'follow' });
    await bridge.chooseMatter({ purpose: 'export', name: 'Smith' });
    expect(calls).toEqual([
      [IPC_CHOOSE_MODEL, { kind: 'file' }],
      [IPC_CHOOSE_FOLDER, { purpose: 'follow' }],
      [IPC_CHOOSE_MATTER, { purpose: 'export', name: 'Smith' }],
    ]);
  });
});
