// FromRelay, call level: generated converters map a Relay op's args and attrs onto raf-op schemas.

export interface RelayConverter {
  readonly relayOp: string;
  readonly op: string;
  convert(args: readonly unknown[], attrs: Readonly<Record<string, unknown>>): unknown;
}

const converters = new Map<string, RelayConverter>();

export function installRelayConverters(list: readonly (RelayConverter | null)[]): void {
  for (const c of list) if (c) converters.set(c.relayOp, c);
}

export function relayConverter(relayOp: string): RelayConverter | undefined {
  return converters.get(relayOp);
}

/** Calls the raf-op op a Relay op maps to, e.g. `fromRelayCall('nn.softmax', [x], { axis: 1 })`. */
export function fromRelayCall(
  relayOp: string,
  args: readonly unknown[],
  attrs: Readonly<Record<string, unknown>> = {},
): unknown {
  const c = converters.get(relayOp);
  if (!c)
    throw new Error(
      `FromRelay: no raf-op op maps Relay op '${relayOp}'; known: ${[...converters.keys()].sort().join(', ')}`,
    );
  return c.convert(args, attrs);
}

/** Keyword args for the target op: Relay positional args by name, Relay attrs renamed. */
export function relayArgs(
  relayOp: string,
  args: readonly unknown[],
  attrs: Readonly<Record<string, unknown>>,
  argNames: readonly string[],
  attrNames: Readonly<Record<string, string>>,
  /** What Relay assumes for an attr a call omits, where it differs from our arg's default. */
  defaults: Readonly<Record<string, unknown>> = {},
): Record<string, unknown> {
  if (args.length !== argNames.length) {
    throw new Error(`FromRelay: ${relayOp} takes ${argNames.length} args (${argNames.join(', ')}), got ${args.length}`);
  }
  const kw: Record<string, unknown> = {};
  argNames.forEach((name, i) => {
    kw[name] = args[i];
  });
  for (const [k, v] of Object.entries({ ...defaults, ...attrs })) {
    const target = attrNames[k];
    if (!target)
      throw new Error(
        `FromRelay: ${relayOp} has no attr '${k}' that raf-op maps; known: ${Object.keys(attrNames).join(', ')}`,
      );
    kw[target] = v;
  }
  return kw;
}
