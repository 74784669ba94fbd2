/** A file or folder name turned into a model id: letters, digits, `.`, `_`, `-`. */
export function modelIdFrom(name: string): string {
  const id = name
    .replace(/\.gguf$/i, '')
    .replace(/[^A-Za-z0-9._-]+/g, '-')
    .replace(/^[^A-Za-z0-9]+/, '')
    .slice(0, 128);
  return id || 'model';
}
