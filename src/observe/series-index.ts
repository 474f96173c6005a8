/**
 * The series of one metric, found by their label values through one map level per label. A request
 * looks up a handful of series; joining their label values into one key string would allocate and
 * hash a new string for each lookup, whereas label values (endpoints, provider and model ids) hash
 * once per string, so a walk down the levels allocates nothing once the series exists.
 */

interface Level<S> {
  readonly next: Map<string, Level<S>>;
  series?: S;
}

export class SeriesIndex<L extends string, S> {
  private root: Level<S> = { next: new Map() };
  private made: S[] = [];

  /** `make` builds a series from its labels, on the first lookup of its label values. */
  constructor(
    private readonly labelNames: readonly L[],
    private readonly make: (labels: Record<L, string>) => S,
  ) {
    if (labelNames.length < 1 || labelNames.length > 5) throw new Error('a series index takes 1 to 5 labels');
  }

  /** Every series made so far, in the order of their first lookup (the order prom-client exposes them in). */
  get all(): readonly S[] {
    return this.made;
  }

  /** The series of these label values, in `labelNames` order (exactly as many as there are names). */
  get(a: string, b?: string, c?: string, d?: string, e?: string): S {
    let level = step(this.root, a);
    if (b !== undefined) level = step(level, b);
    if (c !== undefined) level = step(level, c);
    if (d !== undefined) level = step(level, d);
    if (e !== undefined) level = step(level, e);
    return level.series ?? this.create(level, [a, b, c, d, e]);
  }

  clear(): void {
    this.root = { next: new Map() };
    this.made = [];
  }

  private create(level: Level<S>, values: readonly (string | undefined)[]): S {
    if (values[this.labelNames.length] !== undefined) throw new Error('more label values than label names');
    const labels = {} as Record<L, string>;
    this.labelNames.forEach((name, i) => {
      const v = values[i];
      if (v === undefined) throw new Error(`no value for label ${name}`);
      labels[name] = v;
    });
    const series = this.make(labels);
    level.series = series;
    this.made.push(series);
    return series;
  }
}

function step<S>(level: Level<S>, value: string): Level<S> {
  let next = level.next.get(value);
  if (next === undefined) {
    next = { next: new Map() };
    level.next.set(value, next);
  }
  return next;
}
