// The ONNX oracle of a package's generated tests: the op's ONNX node run alone in onnxruntime-node, which `raf-op
// init` makes an optional dependency of the package (its install script skipped, as in this repository). When it is
// not installed the forward test says so and is skipped; opcheck still runs.

import { createRequire } from 'node:module';
import { ONNX_CONVERSION_RULES, Tensor, tensor, type DType } from '@raf-op/runtime/extend';
import type { OracleAttr, OracleTensor } from '../../../test/support/onnx-oracle.ts';

export interface OnnxOracle {
  readonly kind: 'onnx';
  readonly op: string;
  readonly opset: number;
  readonly inputs?: readonly string[];
  readonly attrs?: Readonly<Record<string, string>>;
  readonly consts?: Readonly<Record<string, OracleAttr>>;
  readonly flatten?: string;
  readonly convert?: Readonly<Record<string, keyof typeof ONNX_CONVERSION_RULES>>;
  readonly outputs?: number;
  /** ONNX attributes whose ONNX default differs from ours: passed even where the case leaves the arg at its default. */
  readonly differs?: readonly string[];
}

type Runner = typeof import('../../../test/support/onnx-oracle.ts');
let runner: Promise<Runner> | undefined;

/** Why onnxruntime-node cannot be loaded here (not installed in the package), or undefined when it can. */
export function onnxMissing(): string | undefined {
  try {
    createRequire(import.meta.url).resolve('onnxruntime-node');
    return undefined;
  } catch {
    return 'onnxruntime-node is not installed in this package (npm install --save-optional onnxruntime-node)';
  }
}

/** The onnxruntime-node runner (loaded on first use). */
export function onnxRunner(): Promise<Runner> {
  runner ??= import('../../../test/support/onnx-oracle.ts');
  return runner;
}

const ONNX_DTYPE: Readonly<Partial<Record<DType, number>>> = {
  float32: 1,
  int32: 6,
  bool: 9,
  float16: 10,
  float64: 11,
};

const toOracle = (t: Tensor): OracleTensor => ({
  dtype: t.dtype as OracleTensor['dtype'],
  shape: [...t.shape],
  data: t.dataSync() as OracleTensor['data'],
});

/**
 * onnxruntime's outputs for a case, as float64 lists (one per output), and whether it had to compute in float32
 * (it has no float64 kernel for some ops). Inputs and attrs map as the spec's `onnx:` says, as in the repository.
 */
export async function onnxExpected(
  run: Runner,
  o: OnnxOracle,
  given: Readonly<Record<string, Tensor | Tensor[]>>,
  args: Readonly<Record<string, unknown>>,
  floats: readonly string[] = [],
  passed?: Readonly<Record<string, unknown>>,
): Promise<{ values: number[][]; narrowed: boolean }> {
  let inputs = given;
  let full = args;
  const first = (o.inputs ?? [])[0];
  if (o.flatten && args[o.flatten] === null && first) {
    // axis=None (over the flattened input) has no ONNX spelling: flatten, then use axis 0.
    const t = given[first] as Tensor;
    inputs = { ...given, [first]: tensor(t.dataSync(), { dtype: t.dtype, shape: [t.size] }) };
    full = { ...args, [o.flatten]: 0 };
  }
  let outputs = o.outputs ?? 1;
  const like = first ? (inputs[first] as Tensor) : undefined;
  const feeds = (o.inputs ?? []).flatMap((name): (OracleTensor | null)[] => {
    const t = inputs[name];
    if (Array.isArray(t)) return t.map(toOracle);
    if (t) return [toOracle(t)];
    const v = full[name];
    if (v === null || v === undefined) return [null];
    const conversion = o.convert?.[name];
    if (conversion) {
      const c = ONNX_CONVERSION_RULES[conversion].toOnnx(v, like!, full);
      outputs = c.outputs;
      return [
        c.input === null
          ? null
          : { dtype: 'int64', shape: [c.input.length], data: BigInt64Array.from(c.input.map(BigInt)) },
      ];
    }
    // A float arg ONNX takes as an input is a scalar of the data's dtype; other args (axes, shapes) int64 tensors.
    if (floats.includes(name) && typeof v === 'number')
      return [{ dtype: like!.dtype as OracleTensor['dtype'], shape: [], data: [v] }];
    // A float list (Resize's scales) is a float32 tensor; an empty one is an input not given.
    if (floats.includes(name) && Array.isArray(v))
      return [v.length ? { dtype: 'float32', shape: [v.length], data: Float32Array.from(v as number[]) } : null];
    const list = Array.isArray(v) ? (v as number[]) : [v as number];
    return [{ dtype: 'int64', shape: [list.length], data: BigInt64Array.from(list.map(BigInt)) }];
  });
  const attrs: Record<string, OracleAttr> = { ...o.consts };
  // Attributes of args the case leaves at their defaults are held back, so that ONNX's own defaults apply and a
  // changed default of ours fails the op's suite (`differs`: ONNX assumes another value, so ours is passed).
  const held: Record<string, OracleAttr> = {};
  for (const [onnxName, arg] of Object.entries(o.attrs ?? {})) {
    const v = full[arg];
    if (v === null || v === undefined) continue;
    const into = passed && !(arg in passed) && !o.differs?.includes(onnxName) && !o.convert?.[arg] ? held : attrs;
    const asTensor = o.convert?.[arg] ? ONNX_CONVERSION_RULES[o.convert[arg]].toOnnxAttr : undefined;
    if (asTensor) {
      // ConstantOfShape's value: a one-element tensor attribute of the op's dtype.
      const t = asTensor(v, full);
      into[onnxName] = { tensor: { dtype: t.dtype as 'float32', shape: [...t.shape], data: [...t.data] } };
      continue;
    }
    into[onnxName] =
      typeof v === 'boolean'
        ? Number(v)
        : typeof v === 'string' && v in ONNX_DTYPE
          ? ONNX_DTYPE[v as DType]!
          : typeof v === 'number' && (floats.includes(arg) || !Number.isInteger(v))
            ? { float: v }
            : (v as OracleAttr);
  }
  const answer = (results: OracleTensor[], narrowed: boolean) => ({
    values: results.map((r) => Array.from(run.toFloat64(r))),
    narrowed,
  });
  // An attribute ONNX requires (Concat's axis) has no default to test: onnxruntime names it, and it is passed.
  const runOnnxOp = async (spec: Parameters<Runner['runOnnxOp']>[0]) => {
    for (;;) {
      try {
        return await run.runOnnxOp(spec);
      } catch (e) {
        const name = /Required attribute '(\w+)' is missing/.exec(String(e))?.[1];
        if (!name || !(name in held)) throw e;
        attrs[name] = held[name]!;
        delete held[name];
        spec = { ...spec, attrs: { ...attrs } };
      }
    }
  };
  try {
    return answer(await runOnnxOp({ op: o.op, opset: o.opset, inputs: feeds, attrs, outputs }), false);
  } catch (e) {
    if (
      !feeds.some((f) => f?.dtype === 'float64') ||
      !/NOT_IMPLEMENTED|Could not find an implementation/i.test(String(e))
    )
      throw e;
    const narrowed = feeds.map((f) =>
      f?.dtype === 'float64' ? { ...f, dtype: 'float32' as const, data: Float32Array.from(f.data as Float64Array) } : f,
    );
    return answer(await runOnnxOp({ op: o.op, opset: o.opset, inputs: narrowed, attrs, outputs }), true);
  }
}
