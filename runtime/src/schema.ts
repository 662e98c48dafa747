// Schema machinery used by generated schema classes: positional/keyword parsing with typed errors.

import { isDType, type DType } from './dtype.ts';
import { OpError } from './errors.ts';
import { CPU, type Device } from './device.ts';
import { placeOn, Tensor, tensor } from './tensor.ts';
import type { ArgType } from './vocab.ts';

export interface FieldSpec {
  readonly name: string;
  readonly type: ArgType;
  /** Present when the field may be omitted; `null` for "none". */
  readonly default?: unknown;
}

export type Keyword = Readonly<Record<string, unknown>>;

/**
 * Reads positional and keyword values into one record keyed by field name, applying defaults
 * and checking each value against its declared type.
 */
export function parseArgs(
  op: string,
  fields: readonly FieldSpec[],
  positional: readonly unknown[],
  keyword?: Keyword,
): Record<string, unknown> {
  if (positional.length > fields.length) {
    const names = fields.map((f) => f.name);
    throw new OpError(op, `takes at most ${fields.length} arguments (${names.join(', ')}), got ${positional.length}`);
  }
  if (keyword)
    for (const k of Object.keys(keyword)) {
      const at = fields.findIndex((f) => f.name === k);
      if (at < 0) {
        const names = fields.map((f) => f.name);
        throw new OpError(op, `unknown argument '${k}'; arguments are ${names.join(', ')}`);
      }
      if (at < positional.length && positional[at] !== undefined) {
        throw new OpError(op, 'given both positionally and by keyword', k);
      }
    }
  const kw = keyword ?? NO_KEYWORDS;
  const out: Record<string, unknown> = {};
  // What plain numbers become: looked up only when some argument is one.
  let scalarDtype: DType | undefined;
  let scalarDevice: Device | undefined;
  for (let i = 0; i < fields.length; i++) {
    const f = fields[i]!;
    let v = i < positional.length ? positional[i] : undefined;
    if (v === undefined) v = kw[f.name];
    if (v === undefined) {
      if (!('default' in f)) throw new OpError(op, 'missing required argument', f.name);
      v = f.default;
    }
    // The common case, a tensor for a tensor field, skips the general coercion.
    if (v instanceof Tensor && (f.type === 'Tensor' || f.type === 'Tensor?')) out[f.name] = v;
    else {
      if (scalarDtype === undefined) {
        scalarDtype = firstTensorDtype(fields, positional, kw);
        scalarDevice = firstTensorDevice(fields, positional, kw);
      }
      out[f.name] = coerce(op, f, v, scalarDtype, scalarDevice);
    }
  }
  return out;
}

const NO_KEYWORDS: Keyword = Object.freeze({});

/**
 * The dtype plain numbers take: the first tensor arg's, skipping bool tensors so that
 * `where(mask, dy, 0)` makes 0 a value like dy rather than a condition. Where every tensor is bool, numbers are bool
 * when they all are 0 or 1 (`logical_and(mask, 1)`), else int32, or float32 if one has a fraction
 * (`where(mask, 1, -1)` picks ints, not two trues).
 */
function firstTensorDtype(fields: readonly FieldSpec[], positional: readonly unknown[], keyword: Keyword): DType {
  let fallback: DType = 'float32';
  const numbers: number[] = [];
  for (let i = 0; i < fields.length; i++) {
    const v = i < positional.length ? positional[i] : keyword[fields[i]!.name];
    if (v instanceof Tensor) {
      if (v.dtype !== 'bool') return v.dtype;
      fallback = 'bool';
    } else if (typeof v === 'number' && fields[i]!.type.startsWith('Tensor')) numbers.push(v);
  }
  if (fallback === 'bool' && numbers.some((n) => n !== 0 && n !== 1))
    return numbers.every(Number.isInteger) ? 'int32' : 'float32';
  return fallback;
}

/** Where plain numbers go: the first tensor arg's device, so `where(mask, dy, 0)` works on the GPU too. */
function firstTensorDevice(fields: readonly FieldSpec[], positional: readonly unknown[], keyword: Keyword): Device {
  for (let i = 0; i < fields.length; i++) {
    const v = i < positional.length ? positional[i] : keyword[fields[i]!.name];
    if (v instanceof Tensor) return v.device;
  }
  return CPU;
}

/**
 * Plain numbers placed on another device than the CPU (`add(x, 1)` with x on WebGPU) since the last takePlacedScalars:
 * the dispatcher disposes them once the call has run, so their GPU buffers go back at once rather than when the garbage
 * collector finds them (500 such calls left 500 buffers live until then).
 */
let placedScalars: Tensor[] = [];

function placeScalar(t: Tensor, to: Device): Tensor {
  const placed = placeOn(t, to);
  if (placed !== t) placedScalars.push(placed);
  return placed;
}

/** The scalars placed off the CPU by the parses since the last call (see placedScalars); the list starts afresh. */
export function takePlacedScalars(): Tensor[] {
  if (!placedScalars.length) return placedScalars;
  const taken = placedScalars;
  placedScalars = [];
  return taken;
}

const isInt = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v);

function coerce(op: string, f: FieldSpec, v: unknown, scalarDtype: DType, scalarDevice: Device = CPU): unknown {
  const optional = f.type.endsWith('?');
  if (v === null) {
    if (optional) return null;
    throw new OpError(op, `expects ${f.type}, got null`, f.name);
  }
  const base = optional ? f.type.slice(0, -1) : f.type;
  switch (base) {
    case 'Tensor':
      if (v instanceof Tensor) return v;
      // Plain numbers and arrays become CPU tensors of the call's dtype (like `add(x, 1)`).
      if (typeof v === 'number' || Array.isArray(v))
        return placeScalar(tensor(v as number, { dtype: scalarDtype }), scalarDevice);
      return failCoerce(op, f, v);
    case 'Tensor[]':
      // Every Tensor[] arg (concatenate's xs, einsum's xs) needs a first element to take rank and dtype from.
      if (Array.isArray(v) && v.length === 0)
        throw new OpError(op, 'needs at least one tensor, got an empty list', f.name);
      if (Array.isArray(v) && v.every((t) => t instanceof Tensor)) return v;
      return failCoerce(op, f, v);
    case 'int':
      return isInt(v) ? v : failCoerce(op, f, v);
    case 'int[]':
      if (isInt(v)) return [v];
      return Array.isArray(v) && v.every(isInt) ? [...v] : failCoerce(op, f, v);
    case 'int|int[]':
      if (isInt(v)) return v;
      return Array.isArray(v) && v.every(isInt) ? [...v] : failCoerce(op, f, v);
    case 'float':
      return typeof v === 'number' ? v : failCoerce(op, f, v);
    case 'float[]':
      return Array.isArray(v) && v.every((x) => typeof x === 'number') ? [...v] : failCoerce(op, f, v);
    case 'bool':
      return typeof v === 'boolean' ? v : failCoerce(op, f, v);
    case 'dtype':
      return isDType(v) ? v : failCoerce(op, f, v);
    case 'string':
      return typeof v === 'string' ? v : failCoerce(op, f, v);
    default:
      throw new Error(`unhandled arg type ${f.type}`);
  }
}

function failCoerce(op: string, f: FieldSpec, v: unknown): never {
  throw new OpError(op, `expects ${f.type}, got ${describe(v)}`, f.name);
}

function describe(v: unknown): string {
  if (v instanceof Tensor) return v.toString();
  if (Array.isArray(v)) return `[${v.map(describe).join(', ')}]`;
  if (typeof v === 'string') return `'${v}'`;
  return String(v);
}
