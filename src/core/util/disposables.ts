/**
 * Cleanup that its owner holds and runs, in the manner of VS Code's DisposableStore: whoever
 * creates a thing that must be stopped adds its stop to the collection it owns; `dispose()` runs
 * them last-added first, each once, and waits for every one even when one fails.
 */
export type Disposer = () => Promise<void> | void;

export class Disposables {
  private readonly items: Disposer[] = [];
  private disposed = false;

  /** Hold `d`; when already disposed, it runs at once (nothing outlives its owner). */
  add(d: Disposer): void {
    if (this.disposed)
      void Promise.resolve()
        .then(d)
        .catch(() => undefined);
    else this.items.push(d);
  }

  get isDisposed(): boolean {
    return this.disposed;
  }

  /** Run everything held, last-added first; the first failure is rethrown after all ran. */
  async dispose(): Promise<void> {
    this.disposed = true;
    let failure: unknown;
    let failed = false;
    while (this.items.length) {
      const d = this.items.pop()!;
      try {
        await d();
      } catch (err) {
        if (!failed) [failure, failed] = [err, true];
      }
    }
    if (failed) throw failure;
  }
}
