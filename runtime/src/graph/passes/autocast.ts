// AutoCast pass (automatic mixed precision): inserts casts by each op's generated cast rule, on its declared data args only, reusing every cast it can.

import { call, invoke } from '../../dispatch.ts';
import type { DType } from '../../dtype.ts';
import type { AnyOpDef } from '../../registry.ts';
import type { Tensor } from '../../tensor.ts';
import type { CastRuleKind } from '../../vocab.ts';
import { bindOut, definedVars, eliminateDeadCode, isAtom, mkVar, type Atom, type Graph, type Var } from '../ir.ts';
import { Recorder } from '../trace.ts';

export type AmpDType = 'float16';

export interface AutoCastOptions {
  readonly amp?: AmpDType;
  /** Cast outputs back to the dtype the graph returned before the pass (default true), so callers see no change of interface. */
  readonly restoreOutputs?: boolean;
}

/**
 * The dtype an op's data args run in, given their current dtypes (RAF's type hints): `always` runs
 * in the AMP dtype, `never` in float32, `infer` in the AMP dtype when any data arg already is,
 * which keeps a chain in float16 without casting back and forth.
 */
const RULES: { readonly [K in CastRuleKind]: (current: readonly DType[], amp: AmpDType) => DType } = {
  always: (_current, amp) => amp,
  never: () => 'float32',
  infer: (current, amp) => (current.includes(amp) ? amp : 'float32'),
};

/** Ops with no rule keep float32 (the safe reading of "no rule"); `cast` itself is the one op the pass never touches. */
function ruleOf(op: AnyOpDef): { rule: CastRuleKind; dataArgs: readonly string[] } | null {
  if (op.name === 'cast') return null;
  return op.cast ?? { rule: 'never', dataArgs: op.tensorArgs };
}

const castable = (d: DType): boolean => d === 'float32' || d === 'float16';

export function autoCast(g: Graph, opts: AutoCastOptions = {}): Graph {
  const amp = opts.amp ?? 'float16';
  const rec = new Recorder();
  const params = g.params.map((p) => mkVar(p.type, p.device, p.hint));
  const env = new Map<Var, Tensor>(g.params.map((p, i) => [p, rec.tensorOf(params[i]!)]));
  // Every cast made, by source tensor and target dtype, plus where a cast came from: casting back reuses the source.
  const casts = new Map<Tensor, Map<DType, Tensor>>();
  const origin = new Map<Tensor, Tensor>();
  const castTo = (t: Tensor, to: DType): Tensor => {
    if (t.dtype === to || !castable(t.dtype)) return t;
    const src = origin.get(t);
    if (src && src.dtype === to) return src;
    let byDtype = casts.get(t);
    if (!byDtype) casts.set(t, (byDtype = new Map()));
    let c = byDtype.get(to);
    if (!c) {
      c = call('cast', [t, to]) as Tensor;
      byDtype.set(to, c);
      origin.set(c, t);
    }
    return c;
  };
  const value = (a: unknown): unknown => {
    if (isAtom(a)) return a.kind === 'var' ? env.get(a) : a.value;
    return Array.isArray(a) && a.some(isAtom) ? a.map(value) : a;
  };

  const outputs = rec.run(() => {
    for (const n of g.nodes) {
      if (n.kind !== 'call') throw new Error('autoCast: run AutoCast before fusion');
      const args = n.args.map(value);
      const rule = ruleOf(n.op);
      if (rule) {
        const idx = rule.dataArgs.map((name) => n.op.schema.fields.findIndex((f: { name: string }) => f.name === name));
        // A Tensor[] data arg (concatenate's xs) counts, and is cast, element by element.
        const isTensor = (t: unknown): t is Tensor => !!t && typeof t === 'object' && 'dtype' in t;
        const data = idx
          .flatMap((i) => (Array.isArray(args[i]) ? (args[i] as unknown[]) : [args[i]]))
          .filter((t): t is Tensor => isTensor(t) && castable(t.dtype));
        if (data.length) {
          const target = RULES[rule.rule](
            data.map((t) => t.dtype),
            amp,
          );
          for (const i of idx) {
            const t = args[i];
            if (Array.isArray(t)) args[i] = t.map((x) => (isTensor(x) ? castTo(x, target) : x));
            else if (isTensor(t)) args[i] = castTo(t, target);
          }
        }
      }
      bindOut(env, n.out, invoke(n.op, args) as Tensor | readonly Tensor[]);
    }
    return g.outputs.map((a) => {
      const t = value(a) as Tensor;
      const want = (a.kind === 'var' ? a.type : a.value).dtype;
      return opts.restoreOutputs === false ? t : castTo(t, want);
    });
  });
  return eliminateDeadCode({ params, nodes: rec.nodes, outputs: outputs.map((t): Atom => rec.atomOf(t)) });
}

/** Which ops a graph runs in `dtype` (by op name, in order), and how many casts it holds: what AutoCast tests assert. */
export function precisionReport(g: Graph): {
  readonly casts: number;
  readonly ops: readonly { op: string; dtype: DType }[];
} {
  let casts = 0;
  const ops: { op: string; dtype: DType }[] = [];
  for (const n of g.nodes) {
    if (n.kind !== 'call') continue;
    if (n.op.name === 'cast') casts++;
    else for (const v of definedVars(n)) ops.push({ op: n.op.name, dtype: v.type.dtype });
  }
  return { casts, ops };
}
