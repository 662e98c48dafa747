// FromRelay: converts a Relay text function into a raf-op graph through the generated Relay converters.

import { CPU, type Device } from '../../device.ts';
import { relayConverter } from '../../relay.ts';
import type { Tensor } from '../../tensor.ts';
import { mkVar, type Graph, type Var } from '../ir.ts';
import { Recorder } from '../trace.ts';
import { parseRelay, RelayParseError, type Pos, type RelayExpr } from './relay-parser.ts';

type Value = Tensor | number | readonly Value[];

export class FromRelayError extends Error {
  constructor(
    message: string,
    readonly pos: Pos,
  ) {
    super(`FromRelay ${pos.line}:${pos.col}: ${message}`);
  }
}

/** Parses Relay text and converts every call with the converter its op registered; params live on `device`. */
export function fromRelay(src: string, opts: { device?: Device } = {}): Graph {
  const fn = parseRelay(src);
  const device = opts.device ?? CPU;
  const rec = new Recorder();
  const params: Var[] = fn.params.map((p) => mkVar({ shape: p.shape, dtype: p.dtype }, device, p.name));
  const scope = new Map<string, Value>(fn.params.map((p, i) => [p.name, rec.tensorOf(params[i]!)]));

  const evaluate = (e: RelayExpr): Value => {
    switch (e.kind) {
      case 'var': {
        const v = scope.get(e.name);
        if (v === undefined) throw new FromRelayError(`unbound variable %${e.name}`, e.pos);
        return v;
      }
      // A scalar stays a number so the op's schema gives it the call's dtype, as Relay's type inference would.
      case 'const':
        return e.value;
      case 'tuple':
        return e.items.map(evaluate);
      case 'item': {
        const t = evaluate(e.tuple);
        if (!Array.isArray(t) || e.index >= t.length)
          throw new FromRelayError(`.${e.index} of a value that is not a tuple of more than ${e.index} items`, e.pos);
        return (t as readonly Value[])[e.index]!;
      }
      case 'call': {
        const conv = relayConverter(e.op);
        if (!conv)
          throw new FromRelayError(
            `unknown op '${e.op}': no raf-op spec maps it (add a relay: mapping to the op's spec)`,
            e.pos,
          );
        const args = e.args.map(evaluate);
        try {
          return conv.convert(args, e.attrs) as Value;
        } catch (err) {
          throw new FromRelayError(`${e.op}: ${(err as Error).message}`, e.pos);
        }
      }
    }
  };

  const outputs = rec.run(() => {
    for (const b of fn.bindings) scope.set(b.name, evaluate(b.value));
    const body = evaluate(fn.body);
    return Array.isArray(body) ? (body as Value[]) : [body];
  });
  return {
    params,
    nodes: rec.nodes,
    outputs: outputs.map((o) => {
      if (typeof o === 'number' || Array.isArray(o))
        throw new FromRelayError('the function must return tensors (or a tuple of tensors)', { line: 1, col: 1 });
      return rec.atomOf(o as Tensor);
    }),
  };
}

export { RelayParseError };
