// FromRelay, call level: generated converters map a Relay op's args and attrs onto raf-op schemas.

import { call } from './dispatch.ts';
import type { DType } from './dtype.ts';
import { zeros } from './tensor.ts';
import { relayForm } from './relay-forms.ts';
import { relayNewShape } from './relay-form-kit.ts';

export interface RelayConverter {
  readonly relayOp: string;
  readonly op: string;
  /** What Relay assumes for attrs a call leaves out, where it differs from raf-op's default (the spec's relay.defaults). */
  readonly defaults?: Readonly<Record<string, unknown>>;
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
  return convertRelayCall(relayOp, args, attrs);
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

/**
 * The attrs that make a Relay call mean exactly the raf-op op its spec maps it to, where Relay's own defaults
 * differ (TVM's nn.batch_matmul transposes b unless told not to). Tests that build a Relay call from a raf-op
 * call write them, as TVM would print that call.
 */
export const RELAY_IDENTITY_ATTRS: Readonly<Record<string, Readonly<Record<string, unknown>>>> = {
  'nn.batch_matmul': { transpose_b: false },
};

// ---- Relay attrs as TVM prints them ----
// The generated converters map attrs one to one. Relay prints more than that: attrs that restate the inputs
// (`channels`, `kernel_size`, `units`), layouts, `out_dtype`, transposition flags, and defaults of its own. The
// adapters below read those, check or honour them, and hand the rest to the generated converter.

interface Shaped {
  readonly shape: readonly number[];
  readonly dtype: string;
}
type Attrs = Record<string, unknown>;
type Next = (args: readonly unknown[], attrs: Attrs) => unknown;
type Adapter = (args: readonly unknown[], attrs: Attrs, next: Next) => unknown;

function shaped(v: unknown, relayOp: string, what: string): Shaped {
  if (typeof v !== 'object' || v === null || !('shape' in v))
    throw new Error(`FromRelay: ${relayOp}: ${what} must be a tensor`);
  return v as Shaped;
}

function pick(attrs: Attrs, keys: readonly string[]): { taken: Attrs; rest: Attrs } {
  const taken: Attrs = {};
  const rest: Attrs = {};
  for (const [k, v] of Object.entries(attrs)) (keys.includes(k) ? taken : rest)[k] = v;
  return { taken, rest };
}

/** The permutation taking `from` to `to` (both orderings of the same letters), or an error naming the layout. */
export function layoutPerm(relayOp: string, from: string, to: string): number[] {
  const ok = from.length === to.length && /^[A-Z]+$/.test(from) && [...to].every((c) => from.includes(c));
  if (!ok || new Set(from).size !== from.length)
    throw new Error(
      `FromRelay: ${relayOp}: layout '${from}' is not supported (only reorderings of ${to}, such as NCHW and NHWC; split layouts like NCHW16c are not)`,
    );
  return [...to].map((c) => from.indexOf(c));
}

function permute(x: unknown, perm: readonly number[]): unknown {
  return perm.every((p, i) => p === i) ? x : call('transpose', [x, perm]);
}
function inverse(perm: readonly number[]): number[] {
  const inv = new Array<number>(perm.length);
  perm.forEach((p, i) => (inv[p] = i));
  return inv;
}

/** `out_dtype`: "" (or absent) keeps the input dtype; another dtype computes in that dtype (inputs cast first). */
function outDtype(relayOp: string, attrs: Attrs, xs: readonly unknown[]): unknown[] {
  const od = attrs.out_dtype;
  if (od === undefined || od === null || od === '') return [...xs];
  if (typeof od !== 'string') throw new Error(`FromRelay: ${relayOp}: out_dtype must be a dtype name`);
  return xs.map((x) => (shaped(x, relayOp, 'input').dtype === od ? x : call('cast', [x, od])));
}

function restates(relayOp: string, attr: string, given: unknown, actual: readonly number[] | number): void {
  if (given === undefined || given === null) return;
  const want = Array.isArray(actual) ? actual : [actual];
  const got = Array.isArray(given) ? given : [given];
  if (got.length !== want.length || got.some((g, i) => g !== want[i]))
    throw new Error(
      `FromRelay: ${relayOp}: ${attr}=${JSON.stringify(given)} disagrees with the inputs, which give ${JSON.stringify(actual)}`,
    );
}

function spatial(relayOp: string, attrs: Attrs, key: 'layout' | 'data_layout'): { toNchw: number[] } {
  const layout = (attrs[key] as string | undefined) ?? 'NCHW';
  const out = attrs.out_layout as string | undefined;
  if (out !== undefined && out !== '' && out !== layout)
    throw new Error(
      `FromRelay: ${relayOp}: out_layout '${out}' differs from ${key} '${layout}', which is not supported`,
    );
  return { toNchw: layoutPerm(relayOp, layout, 'NCHW') };
}

function pool(relayOp: string): Adapter {
  return (args, attrs, next) => {
    const { taken, rest } = pick(attrs, ['layout', 'out_layout', 'ceil_mode', 'dilation']);
    if (taken.ceil_mode === true) throw new Error(`FromRelay: ${relayOp}: ceil_mode=True is not supported`);
    const d = taken.dilation as number[] | undefined;
    if (d && d.some((v) => v !== 1))
      throw new Error(`FromRelay: ${relayOp}: dilation ${JSON.stringify(d)} is not supported`);
    const { toNchw } = spatial(relayOp, taken, 'layout');
    const y = next([permute(args[0], toNchw), ...args.slice(1)], rest);
    return permute(y, inverse(toNchw));
  };
}

/**
 * Relay's sum and prod keep their input's dtype (TVM's reduce type relation); raf.op.sum and prod accumulate bool and
 * narrow integers in int64 / uint64 as NumPy does, so the importer casts back (wrapping as TVM's fixed-width sum does).
 */
const keepDtype =
  (relayOp: string): Adapter =>
  (args, attrs, next) => {
    const x = shaped(args[0], relayOp, 'data');
    const y = next(args, attrs);
    return shaped(y, relayOp, 'result').dtype === x.dtype ? y : call('cast', [y, x.dtype]);
  };

/**
 * Relay's cumsum and cumprod with no dtype keep their input's (TVM's scan type relation); raf.op.cumsum and cumprod
 * then scan bool and narrow integers in int64 / uint64 as NumPy does, so the importer casts back; a dtype given stays.
 */
const keepScanDtype =
  (relayOp: string): Adapter =>
  (args, attrs, next) =>
    attrs.dtype === null || attrs.dtype === undefined || attrs.dtype === ''
      ? keepDtype(relayOp)(args, attrs, next)
      : next(args, attrs);

const adapters = new Map<string, Adapter>([
  ['sum', keepDtype('sum')],
  ['prod', keepDtype('prod')],
  ['cumsum', keepScanDtype('cumsum')],
  ['cumprod', keepScanDtype('cumprod')],
  [
    'nn.conv2d',
    (args, attrs, next) => {
      const op = 'nn.conv2d';
      const { taken, rest } = pick(attrs, [
        'channels',
        'kernel_size',
        'data_layout',
        'kernel_layout',
        'out_layout',
        'out_dtype',
      ]);
      const { toNchw } = spatial(op, taken, 'data_layout');
      const kl = (taken.kernel_layout as string | undefined) ?? 'OIHW';
      const x = permute(args[0], toNchw);
      const w = permute(args[1], layoutPerm(op, kl, 'OIHW'));
      const ws = shaped(w, op, 'the weight').shape;
      restates(op, 'channels', taken.channels, ws[0]!);
      restates(op, 'kernel_size', taken.kernel_size, [ws[2]!, ws[3]!]);
      return permute(next(outDtype(op, taken, [x, w]), rest), inverse(toNchw));
    },
  ],
  ['nn.max_pool2d', pool('nn.max_pool2d')],
  ['nn.avg_pool2d', pool('nn.avg_pool2d')],
  ['nn.global_avg_pool2d', pool('nn.global_avg_pool2d')],
  ['nn.global_max_pool2d', pool('nn.global_max_pool2d')],
  [
    'nn.dense',
    (args, attrs, next) => {
      const op = 'nn.dense';
      const { taken, rest } = pick(attrs, ['units', 'out_dtype']);
      if (args.length !== 2 && args.length !== 3)
        throw new Error(`FromRelay: ${op} takes 2 args (data, weight), got ${args.length}`);
      const [x, w, b] = outDtype(op, taken, args);
      const ws = shaped(w, op, 'the weight');
      restates(op, 'units', taken.units, ws.shape[0]!);
      // Relay's dense has no bias; raf-op's dense adds one, so it gets zeros (a third argument is taken as the bias).
      return next([x, w, b ?? zeros([ws.shape[0]!], ws.dtype as DType)], rest);
    },
  ],
  [
    'nn.batch_matmul',
    (args, attrs, next) => {
      const op = 'nn.batch_matmul';
      const { taken, rest } = pick(attrs, ['transpose_a', 'transpose_b', 'out_dtype']);
      let [a, b] = outDtype(op, taken, args.slice(0, 2));
      // TVM's batch_matmul defaults to b transposed (b is [batch, N, K]).
      if (taken.transpose_a === true) a = call('transpose', [a, [0, 2, 1]]);
      if (taken.transpose_b !== false) b = call('transpose', [b, [0, 2, 1]]);
      return next([a, b], rest);
    },
  ],
  [
    'nn.matmul',
    (args, attrs, next) => {
      const op = 'nn.matmul';
      const { taken, rest } = pick(attrs, ['transpose_a', 'transpose_b', 'out_dtype', 'units']);
      let [a, b] = outDtype(op, taken, args.slice(0, 2));
      const t = (v: unknown): unknown => {
        const n = shaped(v, op, 'input').shape.length;
        return call('transpose', [v, [...Array(n).keys()].map((i) => (i < n - 2 ? i : i === n - 2 ? n - 1 : n - 2))]);
      };
      if (taken.transpose_a === true) a = t(a);
      if (taken.transpose_b === true) b = t(b);
      restates(op, 'units', taken.units, shaped(b, op, 'b').shape.at(-1)!);
      return next([a, b], rest);
    },
  ],
  [
    'expand_dims',
    (args, attrs, next) => {
      const { taken, rest } = pick(attrs, ['num_newaxis']);
      const n = (taken.num_newaxis as number | undefined) ?? 1;
      let y = args[0];
      for (let k = 0; k < n; k++) y = next([y], rest);
      return y;
    },
  ],
  [
    'reshape',
    (args, attrs, next) => {
      const { taken, rest } = pick(attrs, ['allowzero']);
      const x = shaped(args[0], 'reshape', 'data');
      const ns = rest.newshape;
      // Relay's codes (0 copies an input dim, -2 copies the rest, -3 merges two, -4 splits one) become plain dims.
      if (Array.isArray(ns) && taken.allowzero !== true && taken.allowzero !== 1)
        rest.newshape = relayNewShape('reshape', x.shape, ns as number[]);
      return next(args, rest);
    },
  ],
  [
    'take',
    (args, attrs, next) => {
      const { taken, rest } = pick(attrs, ['mode', 'batch_dims']);
      if (taken.mode === 'wrap') throw new Error("FromRelay: take: mode='wrap' is not supported");
      if (taken.batch_dims !== undefined && taken.batch_dims !== 0)
        throw new Error('FromRelay: take: batch_dims other than 0 is not supported');
      // No axis (Relay's default, from the spec's relay.defaults) takes from the flattened input.
      if (rest.axis === null || rest.axis === undefined) {
        const { axis: _, ...others } = rest;
        return next([call('reshape', [args[0], [-1]]), args[1]], { ...others, axis: 0 });
      }
      return next(args, rest);
    },
  ],
  [
    'nn.pad',
    (args, attrs, next) => {
      const { taken, rest } = pick(attrs, ['pad_width', 'pad_mode', 'pad_value']);
      if (taken.pad_mode !== undefined && taken.pad_mode !== 'constant')
        throw new Error(`FromRelay: nn.pad: pad_mode '${String(taken.pad_mode)}' is not supported (only constant)`);
      const pw = taken.pad_width as (number | number[])[];
      if (!Array.isArray(pw)) throw new Error('FromRelay: nn.pad needs pad_width');
      let value: unknown = taken.pad_value ?? 0;
      if (args.length > 1) {
        const v = args[1];
        if (typeof v === 'number') value = v;
        else {
          const t = v as { storage?: unknown; dataSync?: () => ArrayLike<number>; shape: readonly number[] };
          try {
            value = t.dataSync!()[0];
          } catch {
            throw new Error(
              'FromRelay: nn.pad: pad_value must be known when converting (a constant), not a graph input',
            );
          }
        }
      }
      // Relay's [[before, after], ...] per axis becomes raf-op's [befores..., afters...]; a flat list is raf-op's already.
      const pairs = pw.every((p) => Array.isArray(p));
      const pads = pairs ? [...pw.map((p) => (p as number[])[0]!), ...pw.map((p) => (p as number[])[1]!)] : pw;
      return next([args[0]], { ...rest, pad_width: pads, pad_value: value });
    },
  ],
  [
    'nn.batch_norm',
    (args, attrs, next) => {
      // Relay's batch_norm gives (y, moving_mean, moving_var); in inference the stats pass through.
      const y = next(args, attrs);
      return [Array.isArray(y) ? y[0] : y, args[3], args[4]];
    },
  ],
  [
    'mean',
    (args, attrs, next) => {
      if (attrs.exclude === true) throw new Error('FromRelay: mean: exclude=True is not supported');
      const { rest } = pick(attrs, ['exclude']);
      return next(args, rest);
    },
  ],
]);

/** Relay ops that only place or copy a value: the importer passes their input through. */
const IDENTITY = new Set([
  'on_device',
  'device_copy',
  'copy',
  'stop_fusion',
  'annotation.stop_fusion',
  // Markers of BYOC partitioning, rematerialization and function ids: values pass through.
  'annotation.compiler_begin',
  'annotation.compiler_end',
  'annotation.checkpoint',
  'annotation.with_funcid',
  // AutoQuantize's and bit-packing's hints, and the debug callback: computed as the value itself.
  'annotation.cast_hint',
  'annotation.bitpack_start',
  'annotation.bitpack_end',
  'debug',
]);

/** Converts one Relay call: the op's adapter (if any) reads Relay's own attrs, then the generated converter runs. */
export function convertRelayCall(
  relayOp: string,
  args: readonly unknown[],
  attrs: Readonly<Record<string, unknown>>,
): unknown {
  if (IDENTITY.has(relayOp)) {
    if (args.length !== 1) throw new Error(`FromRelay: ${relayOp} takes 1 arg, got ${args.length}`);
    return args[0];
  }
  const c = converters.get(relayOp);
  // Relay ops no single raf-op op is: composed from raf-op calls (relay-forms.ts); a spec's mapping comes first.
  const form = c ? undefined : relayForm(relayOp);
  if (form) return form(args, attrs);
  if (!c)
    throw new Error(
      `FromRelay: unknown op '${relayOp}': no raf-op spec maps it (add a relay: mapping to the op's spec)`,
    );
  const adapt = adapters.get(relayOp);
  // Relay's defaults first, so an adapter sees what Relay would (take without axis: axis=None).
  return adapt ? adapt(args, { ...c.defaults, ...attrs }, (a, at) => c.convert(a, at)) : c.convert(args, attrs);
}
