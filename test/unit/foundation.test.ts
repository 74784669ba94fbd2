import { describe, expect, it } from 'vitest';
import { Disposables } from '../../src/core/util/disposables';
import { lazy } from '../../src/core/util/lazy';

describe('Disposables', () => {
  it('runs everything held, last added first, each once, even when one fails', async () => {
    const d = new Disposables();
    const ran: string[] = [];
    d.add(() => void ran.push('worker'));
    d.add(async () => {
      ran.push('table');
      throw new Error('close failed');
    });
    d.add(() => void ran.push('feature'));
    await expect(d.dispose()).rejects.toThrow('close failed');
    expect(ran).toEqual(['feature', 'table', 'worker']);
    await d.dispose();
    expect(ran).toHaveLength(3);
  });

  it('something added after dispose is stopped at once (nothing outlives its owner)', async () => {
    const d = new Disposables();
    await d.dispose();
    let stopped = false;
    d.add(() => {
      stopped = true;
    });
    await new Promise((r) => setTimeout(r, 0));
    expect(stopped).toBe(true);
  });
});

describe('lazy', () => {
  it('makes the value once and shares it; a failed attempt is forgotten and tried again', async () => {
    let calls = 0;
    const value = lazy(async () => {
      calls++;
      if (calls === 1) throw new Error('model not installed yet');
      return { made: calls };
    });
    await expect(value.get()).rejects.toThrow('model not installed yet');
    const [a, b] = await Promise.all([value.get(), value.get()]);
    expect(a).toBe(b);
    expect(a).toEqual({ made: 2 });
    expect(calls).toBe(2);
  });
});
