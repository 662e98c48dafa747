// The op registry: what a base op is (schema, declare, type, gradient, cast rule, fusion pattern).

import type { Device } from './device.ts';
import type { FieldSpec, Keyword } from './schema.ts';
import type { Tensor, TensorType } from './tensor.ts';
import type { CastRule, FusionPattern } from './vocab.ts';

/** The result of a type function: the normalized args and the output type (a list of types for a tuple op). */
export interface Typed<A, O extends TensorType | readonly TensorType[] = TensorType> {
  readonly args: A;
  readonly out: O;
}

/**
 * What declare decides: the value itself (host ops such as `shape`), one tensor to compute, or a tuple of tensors
 * (split), which a kernel returns as a list in `outs` order.
 */
export type Declared<A> =
  | { readonly kind: 'value'; readonly value: unknown }
  | { readonly kind: 'tensor'; readonly args: A; readonly out: TensorType; readonly device: Device }
  | { readonly kind: 'tuple'; readonly args: A; readonly outs: readonly TensorType[]; readonly device: Device };

/**
 * Context handed to a gradient: the saved values, the non-tensor args and `dy`. A tuple op gets one dy per output,
 * zeros for outputs nothing differentiated used, so a backward never branches on a missing gradient.
 */
export type GradContext = Readonly<Record<string, unknown>> & { readonly dy: Tensor | readonly Tensor[] };
/** One gradient per tensor input; a `Tensor[]` input gets a list, null where an element gets none. */
export type GradResult = Readonly<Record<string, Tensor | readonly (Tensor | null)[] | null | undefined>>;

export interface GradDef {
  /** The values the backward keeps alive: input names and/or `y` (the output). */
  readonly saves: readonly string[];
  /** The tensor inputs that receive a gradient. */
  readonly inputs: readonly string[];
  readonly fn: (ctx: GradContext) => GradResult;
}

export interface OpDef<A = Record<string, unknown>> {
  readonly name: string;
  readonly doc: string;
  readonly schema: {
    readonly fields: readonly FieldSpec[];
    parse(op: string, positional: readonly unknown[], keyword?: Keyword): A;
  };
  /** The tensor-typed fields, in schema order. */
  readonly tensorArgs: readonly string[];
  /** The type function; a tuple op's gives one output type per element. */
  readonly type: (args: A) => Typed<A, TensorType | readonly TensorType[]>;
  readonly declare: (args: A) => Declared<A>;
  readonly fusion: FusionPattern;
  readonly cast: CastRule | null;
  grad: GradDef | null;
  /** The spec this op came from, for messages. */
  readonly source: string;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyOpDef = OpDef<any>;

const table = new Map<string, AnyOpDef>();

/** Called once by the generated registry; re-installing the same op is a no-op. */
export function installOps(ops: Readonly<Record<string, AnyOpDef>>): void {
  for (const op of Object.values(ops)) table.set(op.name, op);
}

export function getOp(name: string): AnyOpDef {
  const op = table.get(name.replace(/^raf\.op\./, ''));
  if (!op) throw new Error(`unknown op '${name}'`);
  return op;
}

export function listOps(): AnyOpDef[] {
  return [...table.values()];
}
