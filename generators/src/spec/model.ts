// The op model: immutable, resolved and checked; the only thing emitters see.

import type { ArgType, CastRuleKind, FusionPattern, OnnxConversion } from '../../../runtime/src/vocab.ts';
import type { DType } from '../../../runtime/src/dtype.ts';
import type { Expr } from '../expr/ast.ts';
import type { Loc } from './errors.ts';
import type { Formula } from './formula.ts';

export type { ArgType, CastRuleKind, FusionPattern, DType, Expr, Formula, Loc, OnnxConversion };

export type Check =
  | { readonly kind: 'axis'; readonly of: string }
  | { readonly kind: 'axes'; readonly of: string }
  /** A tensor with the same shape and dtype as another (dy like y). */
  | { readonly kind: 'like'; readonly of: string }
  /** On a reduction's axis arg: the axes it names (null: all) of `of` must not be empty (max, argmax: no identity). */
  | { readonly kind: 'nonempty'; readonly of: string }
  | { readonly kind: 'nonneg' }
  | { readonly kind: 'positive' }
  /**
   * On a Tensor arg: the output type depends on its values (range, constant_of_shape), so the type function reads them
   * and hands them to the custom rule; in a graph the tensor must then be a constant.
   */
  | { readonly kind: 'values' }
  | { readonly kind: 'one_of'; readonly values: readonly (string | number)[] }
  | { readonly kind: 'range'; readonly lo: number; readonly hi: number };

export interface ArgModel {
  readonly name: string;
  readonly type: ArgType;
  /** Absent for required args; `{ value: null }` for "none". */
  readonly default?: { readonly value: unknown };
  readonly checks: readonly Check[];
  readonly doc?: string;
  readonly loc: Loc;
}

export type ShapeRule =
  | { readonly kind: 'same'; readonly of: string }
  | { readonly kind: 'broadcast'; readonly of: readonly string[] }
  | { readonly kind: 'reduce'; readonly x: string; readonly axis: string; readonly keepdims: string | null }
  /** `mode` says which operand is transposed, as in RAF's matmul_nt / matmul_tn. */
  | { readonly kind: 'matmul'; readonly a: string; readonly b: string; readonly mode: 'nn' | 'nt' | 'tn' | 'tt' }
  /** The elements of a `Tensor[]` joined along an axis (concatenate). */
  | { readonly kind: 'concat'; readonly xs: string; readonly axis: string }
  | { readonly kind: 'custom'; readonly fn: string }
  | { readonly kind: 'host' };

export interface OutModel {
  readonly shape: ShapeRule;
  readonly dtype: DType | null;
  /** `out: { tuple: custom(fn) }`: several outputs (split); the rule returns one type per output. */
  readonly tuple: boolean;
  /** A tuple with a fixed number of outputs (`outputs: [values, indices]`): their names, in order; null otherwise. */
  readonly outputs: readonly string[] | null;
}

export type GradModel =
  | { readonly kind: 'none' }
  | {
      readonly kind: 'formulas';
      readonly saves: readonly string[];
      readonly inputs: readonly { name: string; formula: Formula; source: string }[];
    }
  /** Derived from `compute`: the backward is the synthesized op `dxOp`, taking the op's inputs and dy. */
  | {
      readonly kind: 'derived';
      readonly saves: readonly string[];
      readonly dxOp: string;
      readonly inputs: readonly string[];
    }
  | { readonly kind: 'custom'; readonly saves: readonly string[]; readonly inputs: readonly string[] };

export interface DialectModel {
  readonly name: 'cpu' | 'webgpu' | 'wasm';
  readonly level: number;
  /** Generated from `compute`, or hand-written in the dialect's kernels folder. */
  readonly kernel: 'generated' | 'hand';
}

export interface RelayModel {
  readonly op: string;
  readonly args: readonly string[];
  readonly attrs: Readonly<Record<string, string>>;
  /** Relay attr → the value Relay assumes when a call omits it, where that differs from our arg's default. */
  readonly defaults: Readonly<Record<string, unknown>>;
}

/** How an older opset spells the op (`onnx.before`): overrides of inputs, attrs and defaults for opsets below `until`. */
export interface OnnxFormModel {
  readonly until: number;
  readonly inputs: readonly string[] | null;
  readonly attrs: Readonly<Record<string, string>> | null;
  readonly defaults: Readonly<Record<string, unknown>>;
}

export interface OnnxModel {
  readonly op: string;
  /** The opset whose signature `inputs` and `attrs` follow; the test oracle runs at it. */
  readonly opset: number;
  /** The first opset that has the ONNX op (ONNX's changelog); FromOnnx imports every opset from here on. */
  readonly since: number;
  /** Older spellings, oldest last: each covers the opsets from the previous form's `until` (or `since`) below its own. */
  readonly before: readonly OnnxFormModel[];
  readonly inputs: readonly string[];
  readonly attrs: Readonly<Record<string, string>>;
  /** ONNX attributes with a fixed value that no arg carries (Gemm's transB: 1 for x·Wᵀ). */
  readonly consts: Readonly<Record<string, number>>;
  /** ONNX attribute → the value ONNX assumes when a node omits it (ReduceSum's keepdims: 1), where that differs from ours. */
  readonly defaults: Readonly<Record<string, unknown>>;
  /** ONNX attributes no arg carries that a node may set: to the one value meaning what this op computes, or null for any value. */
  readonly accept: Readonly<Record<string, unknown>>;
  /** An `int?` axis arg whose null means "flattened": ONNX then sees x flattened, with axis 0. */
  readonly flatten: string | null;
  /** Args whose values ONNX spells differently, with the conversion that maps them (split's indices → sizes). */
  readonly convert: Readonly<Record<string, OnnxConversion>>;
}

/** A test shape for one tensor arg: a shape, or for a `Tensor[]` arg one shape per element. */
export type ArgShape = readonly number[] | readonly (readonly number[])[];

export interface TestModel {
  /** One entry per case: a shape per tensor arg. */
  readonly shapes: readonly (readonly ArgShape[])[];
  readonly grid: Readonly<Record<string, readonly unknown[]>>;
  readonly dtypes: readonly DType[];
  readonly domain: readonly [number, number];
  readonly errors: readonly { shapes: readonly ArgShape[]; args: Readonly<Record<string, unknown>>; message: string }[];
  /** Tensor args with their own dtype (int32 indices, bool conditions) or domain. */
  readonly inputs: Readonly<Record<string, { readonly dtype?: DType; readonly domain?: readonly [number, number] }>>;
  /** Explicit cases added to the shapes × grid product: a shape per tensor arg and some attrs. */
  readonly cases: readonly { readonly shapes: readonly ArgShape[]; readonly args: Readonly<Record<string, unknown>> }[];
  /** A formula over other ops the result must equal, for ops ONNX lacks; one per named output for a tuple op. */
  readonly oracle: string | Readonly<Record<string, string>> | null;
  /** The oracle is a hand-written float64 reference (test/references/OP.ts), for ops no formula expresses. */
  readonly reference: boolean;
  /** The spec says the op may return NaN or infinities for inputs in its domain (the op suite otherwise refuses them). */
  readonly nonFinite: boolean;
  /**
   * Arg sets (besides the tensor) of the generated NaN/±inf case, which every reduction (fusion comm_reduce) gets with
   * its defaults and a selection or scan op declares (`tests.non_finite_cases`); null when the spec declares none.
   */
  readonly nonFiniteCases: readonly Readonly<Record<string, unknown>>[] | null;
}

export interface OpModel {
  readonly name: string;
  readonly doc: string;
  readonly category: string;
  /** Spec file, repository-relative. */
  readonly file: string;
  /** The schema these args belong to (the op itself, or the op it reuses). */
  readonly schema: string;
  readonly args: readonly ArgModel[];
  readonly out: OutModel;
  readonly compute: { readonly source: string; readonly expr: Expr } | null;
  readonly grad: GradModel;
  readonly fusion: FusionPattern;
  /** The spelled-out form a graph pass rewrites into this op: each role and the ops that may play it (`recognize:`). */
  readonly recognize: Readonly<Record<string, readonly string[]>> | null;
  readonly cast: { readonly rule: CastRuleKind; readonly dataArgs: readonly string[] } | null;
  /**
   * What an int32 or bool value of a Tensor arg does: `float` computes in a float dtype (NumPy/PyTorch promotion),
   * `refuse` is an error; `integer` refuses float values instead (bitwise, integer division); null (no field) lets
   * it reach the kernels as it is (integer math).
   */
  readonly promote: 'float' | 'refuse' | 'integer' | null;
  readonly relay: RelayModel | null;
  readonly onnx: OnnxModel | null;
  readonly dialects: readonly DialectModel[];
  readonly tests: TestModel;
  /** Set on backward ops synthesized from another op's `compute` (e.g. `hardswish_dx`). */
  readonly derivedFrom: string | null;
  readonly loc: Loc;
}

export interface Model {
  readonly ops: readonly OpModel[];
  /** In an operator author's package: the names of the installed runtime's ops, which the model holds for reference only. */
  readonly builtin?: ReadonlySet<string>;
  /**
   * In an operator author's package: kernels the package adds to built-in ops (`overrides: true` specs), each a new
   * dialect op at a level in the package's own dialect; the built-in op and its dialect ops stay as they are.
   */
  readonly overrides?: readonly OverrideModel[];
  /** In an operator author's package: its npm name (its override dialect is `<name>:cpu`). */
  readonly packageName?: string;
  /** In this repository: every spec's text, shipped in the runtime package so users' specs can name these ops. */
  readonly sources?: readonly { readonly file: string; readonly text: string }[];
}

/** A package's kernel for a built-in op, from a spec that says `overrides: true`. */
export interface OverrideModel {
  readonly op: string;
  readonly file: string;
  readonly doc?: string;
  /** The device the kernel runs on (cpu for now) and the package dialect that holds it, e.g. `my-ops:cpu`. */
  readonly device: 'cpu';
  readonly dialect: string;
  readonly level: number;
}

export function tensorArgs(op: OpModel): ArgModel[] {
  return op.args.filter((a) => a.type.startsWith('Tensor'));
}

export function attrArgs(op: OpModel): ArgModel[] {
  return op.args.filter((a) => !a.type.startsWith('Tensor'));
}

export function findOp(model: Model, name: string): OpModel | undefined {
  return model.ops.find((o) => o.name === name);
}
