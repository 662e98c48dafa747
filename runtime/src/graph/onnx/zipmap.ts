// ZipMap's outputs: the model outputs a conversion gives as sequences of maps (OnnxMaps), by value name, with their
// class labels. The ZipMap form records them while a model converts; FromOnnx reads them when it lays out the graph's
// outputs (OutputLayout's zipmap), and OnnxSession.runValues builds the maps from each run's rows.

type Labels = readonly (number | string)[];

let current: Map<string, Labels> | null = null;

/** Records that the value `name` is a ZipMap of `labels`. */
export function zipMapOutput(name: string, labels: Labels): void {
  if (!current) throw new Error('ZipMap converts only as part of a model (FromOnnx)');
  current.set(name, labels);
}

/** Runs `fn` with a fresh record of the ZipMap outputs it converts, which `fn` reads through its argument. */
export function zipMapScope<R>(fn: (zipmaps: ReadonlyMap<string, Labels>) => R): R {
  const outer = current;
  const mine = new Map<string, Labels>();
  current = mine;
  try {
    return fn(mine);
  } finally {
    current = outer;
  }
}
