// Importer forms for ONNX elementwise math whose raf-op op depends on what the node is given (merged into IMPORTER_FORMS
// in forms.ts): Div of integers truncates, Mod's fmod and BitShift's direction pick an op, Sum/Mean/Max/Min take any
// number of inputs, CastLike casts to another input's dtype. Every attribute each opset defines is read or refused.

import { isFloat, isInteger, type DType } from '../../dtype.ts';
import { add } from '../../generated/api/add.ts';
import { cast } from '../../generated/api/cast.ts';
import { divide } from '../../generated/api/divide.ts';
import { floorMod } from '../../generated/api/floor_mod.ts';
import { leftShift } from '../../generated/api/left_shift.ts';
import { maximum } from '../../generated/api/maximum.ts';
import { minimum } from '../../generated/api/minimum.ts';
import { rightShift } from '../../generated/api/right_shift.ts';
import { truncDivide } from '../../generated/api/trunc_divide.ts';
import { truncMod } from '../../generated/api/trunc_mod.ts';
import { tensor, type Tensor } from '../../tensor.ts';
import type { ImportContext } from './forms.ts';
import type { OnnxNode } from './proto.ts';
import { castToFormat, formatOf, roundModeOf } from './narrow.ts';

type Form = (ctx: ImportContext) => Tensor[] | null;

const need = (ctx: ImportContext, i: number): Tensor => {
  const t = ctx.input(i);
  if (!t) throw new Error(`input ${i} is required`);
  return t;
};

/** Refuses any attribute of the node outside `known`, naming it. */
function onlyAttrs(node: OnnxNode, known: readonly string[]): void {
  for (const a of node.attrs)
    if (!known.includes(a.name)) throw new Error(`attribute '${a.name}' of ${node.opType} is not imported`);
}

/** Every input of a variadic node (Sum, Mean, Max, Min), which ONNX types alike. */
function variadic(ctx: ImportContext): Tensor[] {
  onlyAttrs(ctx.node, []);
  const xs = ctx.node.inputs.map((_, i) => need(ctx, i));
  if (!xs.length) throw new Error(`${ctx.node.opType} needs at least one input`);
  const dtype = xs[0]!.dtype;
  const other = xs.find((x) => x.dtype !== dtype);
  if (other) throw new Error(`${ctx.node.opType}'s inputs must share one dtype, got ${dtype} and ${other.dtype}`);
  return xs;
}

/** Folds a variadic node's inputs left to right with a broadcasting binary op (one input is itself). */
const fold =
  (f: (a: Tensor, b: Tensor) => Tensor): Form =>
  (ctx) => [variadic(ctx).reduce((acc, x) => f(acc, x))];

/** Mean of the inputs: their sum divided by their count, in their float dtype (ONNX types Mean over floats only). */
const meanForm: Form = (ctx) => {
  const xs = variadic(ctx);
  const dtype = xs[0]!.dtype;
  if (!isFloat(dtype)) throw new Error(`Mean of ${dtype} inputs is not imported (ONNX defines Mean on floats)`);
  const sum = xs.reduce((acc, x) => add(acc, x));
  return [xs.length === 1 ? sum : divide(sum, tensor([xs.length], { dtype, shape: [] }))];
};

/**
 * Div: integer inputs divide with truncation toward zero in their dtype (raf.op.trunc_divide, as ONNX's integer Div and
 * C do); anything else is left to the mapping, raf.op.divide (true division).
 */
const divForm: Form = (ctx) => {
  const [a, b] = [need(ctx, 0), need(ctx, 1)];
  if (!isInteger(a.dtype) || !isInteger(b.dtype)) return null;
  onlyAttrs(ctx.node, []);
  return [truncDivide(a, b)];
};

/** Mod: fmod = 0 is the remainder with the divisor's sign (floor_mod), fmod = 1 C's fmod with the dividend's (trunc_mod). */
const modForm: Form = (ctx) => {
  onlyAttrs(ctx.node, ['fmod']);
  const [a, b] = [need(ctx, 0), need(ctx, 1)];
  const fmod = (ctx.attr('fmod') as number | undefined) ?? 0;
  if (fmod !== 0 && fmod !== 1) throw new Error(`Mod's fmod must be 0 or 1, got ${fmod}`);
  if (!fmod && isFloat(a.dtype))
    throw new Error(
      `Mod of ${a.dtype} inputs with fmod = 0 is not defined by ONNX (floating-point Mod needs fmod = 1)`,
    );
  return [fmod ? truncMod(a, b) : floorMod(a, b)];
};

/** BitShift: direction LEFT or RIGHT (required) as left_shift or right_shift. */
const bitShiftForm: Form = (ctx) => {
  onlyAttrs(ctx.node, ['direction']);
  const direction = ctx.attr('direction') as string | undefined;
  const [x, shift] = [need(ctx, 0), need(ctx, 1)];
  if (direction === 'LEFT') return [leftShift(x, shift)];
  if (direction === 'RIGHT') return [rightShift(x, shift)];
  throw new Error(
    `BitShift's direction must be LEFT or RIGHT, got ${direction === undefined ? 'none' : `'${direction}'`}`,
  );
};

/**
 * CastLike: input 0 cast to input 1's dtype, or rounded to its narrow type (int4, float8...) as Cast does; saturate
 * (opset 19) and round_mode (opset 24) only concern float8 and float8e8m0 targets.
 */
const castLikeForm: Form = (ctx) => {
  onlyAttrs(ctx.node, ['saturate', 'round_mode']);
  const [x, like] = [need(ctx, 0), need(ctx, 1)];
  // Like a value of a narrow type (int4, float8...): rounded to it as Cast would.
  const format = formatOf(like);
  if (format) return [castToFormat(x, format, (ctx.attr('saturate') ?? 1) !== 0, roundModeOf(ctx.attr('round_mode')))];
  const dtype: DType = like.dtype;
  return [x.dtype === dtype ? x : cast(x, dtype)];
};

export const MATH_FORMS = {
  Div: divForm,
  Mod: modForm,
  BitShift: bitShiftForm,
  Sum: fold(add),
  Mean: meanForm,
  Max: fold(maximum),
  Min: fold(minimum),
  CastLike: castLikeForm,
} satisfies Readonly<Record<string, Form>>;
