/**
 * A value made on first use and shared afterwards. A failed attempt is forgotten, so the next call
 * tries again (a model installed later, a worker that crashed while loading).
 */
export function lazy<T>(make: () => Promise<T>): { get(): Promise<T>; peek(): Promise<T> | undefined; reset(): void } {
  let made: Promise<T> | undefined;
  return {
    get() {
      if (!made) {
        const attempt = make();
        made = attempt;
        attempt.catch(() => {
          if (made === attempt) made = undefined;
        });
      }
      return made;
    },
    peek: () => made,
    reset() {
      made = undefined;
    },
  };
}
