// Importer forms of ONNX's string ops: StringConcat, RegexFullMatch, StringSplit and StringNormalizer, and the ML
// domain's CategoryMapper. raf-op's strings are int32 ids into its string table (strings.ts), and string values are
// known while converting (initializers, Constant nodes, and inputs OnnxSession folds for each run), so each form reads
// the strings, computes in JavaScript as ONNX's reference does, and gives a constant: string results as new string
// tensors, the rest (RegexFullMatch's booleans, StringSplit's counts) as plain tensors.

import { broadcastShapes } from '../../shape.ts';
import { internString, isStringTensor, markStrings, stringOfId } from '../../strings.ts';
import { tensor, type Tensor } from '../../tensor.ts';
import { isSymbolic } from '../trace.ts';
import type { ImportContext } from './forms.ts';

type Form = (ctx: ImportContext) => Tensor[] | null;

/** A string input's strings, row-major, with its shape; an error naming the op where it is not a known string value. */
function strings(ctx: ImportContext, i: number, what: string): { shape: readonly number[]; values: string[] } {
  const t = ctx.input(i);
  if (!t) throw new Error(`${ctx.node.opType} needs its input ${what}`);
  if (!isStringTensor(t)) throw new Error(`${ctx.node.opType}'s ${what} is ${t.dtype}, not a string tensor`);
  const computed: boolean = isSymbolic(t);
  if (computed)
    throw new Error(
      `${ctx.node.opType}'s ${what} is computed at run time; raf-op reads strings only as values known while converting`,
    );
  return { shape: t.shape, values: Array.from(t.dataSync() as ArrayLike<number>, stringOfId) };
}

const stringsOut = (values: readonly string[], shape: readonly number[]): Tensor =>
  markStrings(tensor(Int32Array.from(values, internString), { dtype: 'int32', shape: [...shape] }));

/** The elements of a tensor of `from` broadcast to `to` (NumPy's rules), row-major. */
function broadcastValues<T>(values: readonly T[], from: readonly number[], to: readonly number[]): T[] {
  const n = to.reduce((a, b) => a * b, 1);
  const pad = to.length - from.length;
  const strides = from.map((_, a) => from.slice(a + 1).reduce((p, q) => p * q, 1));
  return Array.from({ length: n }, (_, i) => {
    let rest = i;
    let off = 0;
    for (let a = to.length - 1; a >= 0; a--) {
      const c = rest % to[a]!;
      rest = Math.floor(rest / to[a]!);
      if (a >= pad && from[a - pad] !== 1) off += c * strides[a - pad]!;
    }
    return values[off]!;
  });
}

const stringConcat: Form = (ctx) => {
  const [x, y] = [strings(ctx, 0, 'X'), strings(ctx, 1, 'Y')];
  const shape = broadcastShapes(x.shape, y.shape);
  if (!shape) throw new Error(`StringConcat cannot broadcast [${x.shape.join(', ')}] with [${y.shape.join(', ')}]`);
  const a = broadcastValues(x.values, x.shape, shape);
  const b = broadcastValues(y.values, y.shape, shape);
  return [
    stringsOut(
      a.map((s, i) => s + b[i]!),
      shape,
    ),
  ];
};

/** RE2 full matches, with JavaScript's regular expressions (which read RE2's common syntax alike). */
const regexFullMatch: Form = (ctx) => {
  const pattern = ctx.attr('pattern');
  if (typeof pattern !== 'string') throw new Error('RegexFullMatch needs its pattern attribute');
  let re: RegExp;
  try {
    re = new RegExp(`^(?:${pattern})$`, 'u');
  } catch (e) {
    throw new Error(
      `RegexFullMatch's pattern ${JSON.stringify(pattern)} is not one raf-op can read: ${(e as Error).message}`,
    );
  }
  const x = strings(ctx, 0, 'X');
  return [
    tensor(
      x.values.map((s) => (re.test(s) ? 1 : 0)),
      { dtype: 'bool', shape: [...x.shape] },
    ),
  ];
};

/** Python's str.split(): on runs of whitespace, none kept at either end, at most `max` splits (negative: no limit). */
function splitWhitespace(s: string, max: number): string[] {
  const parts: string[] = [];
  let rest = s.replace(/^\s+/u, '');
  while (rest && (max < 0 || parts.length < max)) {
    const at = rest.search(/\s/u);
    if (at < 0) break;
    parts.push(rest.slice(0, at));
    rest = rest.slice(at).replace(/^\s+/u, '');
  }
  if (rest) parts.push(rest);
  return parts;
}

/** Python's str.split(sep): every occurrence, empty pieces kept, at most `max` splits (negative: no limit). */
function splitOn(s: string, sep: string, max: number): string[] {
  const parts = s.split(sep);
  return max < 0 || parts.length <= max + 1 ? parts : [...parts.slice(0, max), parts.slice(max).join(sep)];
}

/** Y: each string's pieces along a new last axis, padded with empty strings; Z: how many pieces each has (int64). */
const stringSplit: Form = (ctx) => {
  const x = strings(ctx, 0, 'X');
  const delimiter = (ctx.attr('delimiter') as string | undefined) ?? '';
  const max = (ctx.attr('maxsplit') as number | undefined) ?? -1;
  const pieces = x.values.map((s) => (delimiter ? splitOn(s, delimiter, max) : splitWhitespace(s, max)));
  const width = Math.max(0, ...pieces.map((p) => p.length));
  const flat = pieces.flatMap((p) => [...p, ...new Array<string>(width - p.length).fill('')]);
  return [
    stringsOut(flat, [...x.shape, width]),
    tensor(
      pieces.map((p) => p.length),
      { dtype: 'int64', shape: [...x.shape] },
    ),
  ];
};

/**
 * StringNormalizer over [C] or [1, C]: the stop words dropped (compared case-insensitively unless is_case_sensitive),
 * then LOWER, UPPER or NONE; when every element is dropped, one empty string ([1], or [1, 1]).
 */
const stringNormalizer: Form = (ctx) => {
  const x = strings(ctx, 0, 'X');
  if (x.shape.length > 2 || (x.shape.length === 2 && x.shape[0] !== 1))
    throw new Error(`StringNormalizer takes X of shape [C] or [1, C], got [${x.shape.join(', ')}]`);
  const action = (ctx.attr('case_change_action') as string | undefined) ?? 'NONE';
  if (action !== 'NONE' && action !== 'LOWER' && action !== 'UPPER')
    throw new Error(`StringNormalizer's case_change_action is ${action}; ONNX defines NONE, LOWER and UPPER`);
  const sensitive = ((ctx.attr('is_case_sensitive') as number | undefined) ?? 0) !== 0;
  const raw = ctx.attr('stopwords');
  const stop = new Set(
    (typeof raw === 'string' && raw ? raw.split('\u0000') : []).map((w) => (sensitive ? w : w.toLowerCase())),
  );
  let kept = x.values.filter((s) => !stop.has(sensitive ? s : s.toLowerCase()));
  kept = kept.map((s) => (action === 'LOWER' ? s.toLowerCase() : action === 'UPPER' ? s.toUpperCase() : s));
  if (!kept.length) kept = [''];
  return [stringsOut(kept, x.shape.length === 2 ? [1, kept.length] : [kept.length])];
};

/**
 * CategoryMapper (ai.onnx.ml): strings to int64 by cats_strings ↔ cats_int64s (default_int64 when absent), or int64
 * to strings (default_string).
 */
const categoryMapper: Form = (ctx) => {
  const raw = ctx.attr('cats_strings');
  const cats = typeof raw === 'string' ? raw.split('\u0000') : [];
  const ints = (ctx.attr('cats_int64s') as number[] | undefined) ?? [];
  if (cats.length !== ints.length)
    throw new Error(`CategoryMapper has ${cats.length} cats_strings and ${ints.length} cats_int64s; they pair up`);
  const x = ctx.input(0);
  if (!x) throw new Error('CategoryMapper needs its input X');
  if (isStringTensor(x)) {
    const { shape, values } = strings(ctx, 0, 'X');
    const to = new Map<string, number>();
    cats.forEach((c, i) => to.set(c, ints[i]!));
    const dflt = (ctx.attr('default_int64') as number | undefined) ?? -1;
    return [
      tensor(
        values.map((s) => to.get(s) ?? dflt),
        { dtype: 'int64', shape: [...shape] },
      ),
    ];
  }
  const computed: boolean = isSymbolic(x);
  if (computed)
    throw new Error("CategoryMapper's X is computed at run time; raf-op maps it to strings only when known");
  const to = new Map<number, string>();
  ints.forEach((n, i) => to.set(n, cats[i]!));
  const dflt = (ctx.attr('default_string') as string | undefined) ?? '_Unused';
  const values = Array.from(x.dataSync() as ArrayLike<number>, (n) => to.get(Number(n)) ?? dflt);
  return [stringsOut(values, x.shape)];
};

/** Default-domain string ops. */
export const STRING_FORMS: Readonly<Record<string, Form>> = {
  StringConcat: stringConcat,
  RegexFullMatch: regexFullMatch,
  StringSplit: stringSplit,
  StringNormalizer: stringNormalizer,
};

/** ai.onnx.ml string ops. */
export const ML_STRING_FORMS: Readonly<Record<string, Form>> = { 'ai.onnx.ml.CategoryMapper': categoryMapper };
