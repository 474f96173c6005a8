/**
 * The JSON texts of the few names written into every body (the upstream model name, the name a
 * response carries back): made once per name instead of once per request.
 */

const MAX_NAMES = 1024;

/**
 * `make(name)`, remembered per name. Bounded: past MAX_NAMES the memo starts again, so names a
 * caller invents cannot grow it. For values never written to (they are shared).
 */
export function perName<T>(make: (name: string) => T): (name: string) => T {
  const made = new Map<string, T>();
  return (name) => {
    let v = made.get(name);
    if (v === undefined) {
      if (made.size >= MAX_NAMES) made.clear();
      v = make(name);
      made.set(name, v);
    }
    return v;
  };
}

/** `JSON.stringify(name)`, remembered. */
export const jsonString = perName((name) => JSON.stringify(name));
