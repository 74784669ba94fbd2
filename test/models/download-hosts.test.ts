/** The hosts a limited download may reach (serve mode's --allow-downloads-from): how each pattern matches an address. */
import { describe, expect, it } from 'vitest';
import { hostAllowed, normalizeHostPattern } from '../../src/core/models/download';

describe('download host patterns', () => {
  it('normalizeHostPattern – a host, a host and port, or *.domain; a URL of a host gives its host; paths and other schemes are not hosts', () => {
    expect(normalizeHostPattern('HuggingFace.co')).toBe('huggingface.co');
    expect(normalizeHostPattern('https://huggingface.co/')).toBe('huggingface.co');
    expect(normalizeHostPattern('127.0.0.1:8080')).toBe('127.0.0.1:8080');
    expect(normalizeHostPattern('*.HF.co')).toBe('*.hf.co');
    expect(normalizeHostPattern('[::1]:9000')).toBe('[::1]:9000');
    for (const bad of [
      '',
      '*',
      '*.',
      'a.*.com',
      'https://huggingface.co/org/repo',
      'ftp://files.example.com',
      'user@host.example',
      'host.example?x=1',
    ]) {
      expect(normalizeHostPattern(bad), bad).toBeNull();
    }
  });

  it('hostAllowed – the exact host on any port, one port only when named, subdomains only under *.', () => {
    const allowed = (url: string, hosts: string[]) => hostAllowed(new URL(url), hosts);
    expect(allowed('https://huggingface.co/a/b.gguf', ['huggingface.co'])).toBe(true);
    expect(allowed('https://cdn-lfs.huggingface.co/x', ['huggingface.co'])).toBe(false);
    expect(allowed('https://evilhuggingface.co/x', ['huggingface.co'])).toBe(false);
    expect(allowed('https://huggingface.co.evil.example/x', ['huggingface.co'])).toBe(false);
    expect(allowed('https://cas-bridge.xethub.hf.co/x', ['*.hf.co'])).toBe(true);
    expect(allowed('https://hf.co/x', ['*.hf.co'])).toBe(false);
    expect(allowed('http://127.0.0.1:8080/m.gguf', ['127.0.0.1:8080'])).toBe(true);
    expect(allowed('http://127.0.0.1:8081/m.gguf', ['127.0.0.1:8080'])).toBe(false);
    expect(allowed('http://mirror.example/m.gguf', ['mirror.example:80'])).toBe(true);
    expect(allowed('https://mirror.example/m.gguf', ['mirror.example:80'])).toBe(false);
    expect(allowed('file:///etc/passwd', ['localhost', ''])).toBe(false);
    expect(allowed('https://huggingface.co/x', [])).toBe(false);
  });
});
