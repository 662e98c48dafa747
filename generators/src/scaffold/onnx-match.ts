// The scaffolder offers an ONNX mapping (and so onnxruntime as the test oracle) when the new op's name, or its
// compute expression, is an ONNX operator's: `hardswish` or `x * clamp(x + 3, 0, 6) / 6` both find HardSwish.

import { evalExpr } from '../expr/eval.ts';
import { parseExpr } from '../expr/parse.ts';
import type { ArgAnswer } from './answers.ts';

interface OnnxOp {
  /** Attributes, with the inputs after the first that our non-tensor args may supply (TopK's k). */
  readonly attrs?: readonly string[];
  readonly inputs?: readonly string[];
  readonly opset?: number;
  /** Elementwise ops: the operator with ONNX's default attributes, in compute syntax over x. */
  readonly compute?: string;
}

/** ONNX operators (names from the ONNX operator reference), with what the offer needs to map them. */
const ONNX_OPS: Readonly<Record<string, OnnxOp>> = {
  Abs: { compute: 'abs(x)' },
  Acos: {},
  Acosh: {},
  Add: {},
  And: {},
  ArgMax: { attrs: ['axis', 'keepdims'] },
  ArgMin: { attrs: ['axis', 'keepdims'] },
  Asin: {},
  Asinh: {},
  Atan: {},
  Atanh: {},
  AveragePool: {},
  BatchNormalization: { attrs: ['epsilon', 'momentum'], opset: 15 },
  BitShift: {},
  Cast: { attrs: ['to'] },
  Ceil: {},
  Celu: { attrs: ['alpha'], opset: 12, compute: 'max(0, x) + min(0, exp(x) - 1)' },
  Clip: {},
  Concat: { attrs: ['axis'] },
  Conv: {},
  ConvTranspose: {},
  Cos: { compute: 'cos(x)' },
  Cosh: {},
  CumSum: {},
  DepthToSpace: {},
  Div: {},
  Dropout: {},
  Einsum: {},
  Elu: { attrs: ['alpha'], compute: 'where(x > 0, x, exp(x) - 1)' },
  Equal: {},
  Erf: { compute: 'erf(x)' },
  Exp: { compute: 'exp(x)' },
  Expand: {},
  EyeLike: {},
  Flatten: { attrs: ['axis'] },
  Floor: {},
  Gather: { attrs: ['axis'] },
  GatherElements: { attrs: ['axis'] },
  GatherND: {},
  Gelu: { attrs: ['approximate'], opset: 20, compute: '0.5 * x * (1 + erf(x * 0.7071067811865476))' },
  Gemm: {},
  GlobalAveragePool: {},
  GlobalMaxPool: {},
  Greater: {},
  GreaterOrEqual: {},
  GroupNormalization: { attrs: ['epsilon', 'num_groups'], opset: 18 },
  HardSigmoid: { attrs: ['alpha', 'beta'], compute: 'max(0, min(1, 0.2 * x + 0.5))' },
  HardSwish: { opset: 14, compute: 'x * max(0, min(1, x / 6 + 0.5))' },
  Hardmax: { attrs: ['axis'] },
  Identity: { compute: 'x' },
  InstanceNormalization: { attrs: ['epsilon'] },
  IsInf: {},
  IsNaN: {},
  LayerNormalization: { attrs: ['axis', 'epsilon'], opset: 17 },
  LeakyRelu: { attrs: ['alpha'], compute: 'where(x > 0, x, 0.01 * x)' },
  Less: {},
  LessOrEqual: {},
  Log: { compute: 'log(x)' },
  LogSoftmax: { attrs: ['axis'], opset: 13 },
  LpNormalization: { attrs: ['axis', 'p'] },
  MatMul: {},
  Max: {},
  MaxPool: {},
  Mean: {},
  Min: {},
  Mish: { opset: 18, compute: 'x * tanh(log(1 + exp(x)))' },
  Mod: {},
  Mul: {},
  Neg: { compute: '-x' },
  Not: {},
  OneHot: {},
  Or: {},
  PRelu: {},
  Pad: {},
  Pow: {},
  Range: {},
  Reciprocal: { compute: '1 / x' },
  ReduceL1: {},
  ReduceL2: {},
  ReduceLogSumExp: {},
  ReduceMax: {},
  ReduceMean: {},
  ReduceMin: {},
  ReduceProd: {},
  ReduceSum: {},
  ReduceSumSquare: {},
  Relu: { compute: 'max(x, 0)' },
  Reshape: {},
  Resize: {},
  Round: {},
  ScatterElements: { attrs: ['axis'] },
  ScatterND: {},
  Selu: {
    attrs: ['alpha', 'gamma'],
    compute: '1.0507010221481323 * where(x > 0, x, 1.6732631921768188 * (exp(x) - 1))',
  },
  Shape: {},
  Shrink: {},
  Sigmoid: { compute: '1 / (1 + exp(-x))' },
  Sign: {},
  Sin: { compute: 'sin(x)' },
  Sinh: {},
  Size: {},
  Slice: {},
  Softmax: { attrs: ['axis'], opset: 13 },
  Softplus: { compute: 'log(1 + exp(x))' },
  Softsign: { compute: 'x / (1 + abs(x))' },
  SpaceToDepth: {},
  Split: {},
  Sqrt: { compute: 'sqrt(x)' },
  Squeeze: {},
  Sub: {},
  Sum: {},
  Tan: {},
  Tanh: { compute: 'tanh(x)' },
  ThresholdedRelu: { attrs: ['alpha'], compute: 'where(x > 1, x, 0)' },
  Tile: {},
  TopK: { attrs: ['axis', 'largest', 'sorted'], inputs: ['k'], opset: 11 },
  Transpose: {},
  Trilu: {},
  Unsqueeze: {},
  Where: {},
  Xor: {},
};

/** Our spelling of an ONNX attribute, where the common one differs. */
const ATTR_ALIASES: Readonly<Record<string, readonly string[]>> = { epsilon: ['eps'] };

const squash = (s: string) => s.toLowerCase().replace(/_/g, '');

/** The ONNX op whose name is the op's (hard_swish, hardswish → HardSwish; instance_norm → InstanceNormalization). */
function byName(op: string): string | undefined {
  const want = squash(op);
  const variants = [want, want.replace(/norm$/, 'normalization')];
  return Object.keys(ONNX_OPS).find((n) => variants.includes(n.toLowerCase()));
}

/** Sample points away from 0 and from poles, where every candidate is defined or skipped as NaN. */
const SAMPLES = [-2.7, -1.3, -0.6, -0.2, 0.35, 0.8, 1.6, 2.9];

/** The ONNX op whose default behaviour equals the compute expression over its one tensor input, at sample points. */
function byCompute(compute: string, args: readonly ArgAnswer[]): string | undefined {
  const tensors = args.filter((a) => a.type.startsWith('Tensor'));
  if (tensors.length !== 1) return undefined;
  let expr;
  try {
    expr = parseExpr(compute);
  } catch {
    return undefined;
  }
  const env: Record<string, number> = {};
  for (const a of args)
    if (!a.type.startsWith('Tensor') && typeof a.default?.value === 'number') env[a.name] = a.default.value;
  const ours = (x: number) => evalExpr(expr, { ...env, [tensors[0]!.name]: x });
  for (const [name, def] of Object.entries(ONNX_OPS)) {
    if (!def.compute) continue;
    const theirs = parseExpr(def.compute);
    let compared = 0;
    const same = SAMPLES.every((x) => {
      const a = ours(x);
      const b = evalExpr(theirs, { x });
      if (!Number.isFinite(b)) return true;
      compared++;
      return Math.abs(a - b) <= 1e-6 * Math.max(1, Math.abs(b));
    });
    if (same && compared >= 5) return name;
  }
  return undefined;
}

/**
 * The ONNX mapping to offer, in the `--onnx` one-line syntax (`Selu alpha=alpha gamma=gamma`), with why; undefined
 * when neither the name nor the compute expression is an ONNX operator's.
 */
export function onnxOffer(
  op: string,
  compute: string | null | undefined,
  args: readonly ArgAnswer[],
): { text: string; why: string } | undefined {
  const named = byName(op);
  const computed = compute ? byCompute(compute, args) : undefined;
  const name = named ?? computed;
  if (!name) return undefined;
  const def = ONNX_OPS[name]!;
  const ours = new Set(args.map((a) => a.name));
  const tensors = args.filter((a) => a.type.startsWith('Tensor')).map((a) => a.name);
  const words = [name];
  if (def.opset) words.push(`opset=${def.opset}`);
  const extraInputs = (def.inputs ?? []).filter((i) => ours.has(i));
  if (extraInputs.length) words.push(`inputs=${[...tensors, ...extraInputs].join(',')}`);
  for (const attr of def.attrs ?? []) {
    const arg = [attr, ...(ATTR_ALIASES[attr] ?? [])].find((n) => ours.has(n) && !tensors.includes(n));
    if (arg) words.push(`${attr}=${arg}`);
  }
  return {
    text: words.join(' '),
    why: named ? `ONNX has ${name}` : `the compute expression is ONNX's ${name} (with its default attributes)`,
  };
}
