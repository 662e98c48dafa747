// An independent float64 interpreter for Relay text, the oracle of the Relay corpus test. It shares no code with the
// importer (runtime/src/graph/frontends): its own scanner, its own parser into an S-expression-like tree, and an
// environment-passing evaluator over plain Float64Array tensors with closures, recursion and if/else.

export type RDType = 'float16' | 'float32' | 'float64' | 'int8' | 'uint8' | 'int16' | 'int32' | 'int64' | 'bool';
export interface T64 {
  readonly shape: readonly number[];
  readonly dtype: RDType;
  readonly data: Float64Array;
}
interface Closure {
  readonly fn: FnNode;
  readonly env: Env;
}
export type RValue = T64 | Closure | readonly RValue[];

export interface RefParam {
  readonly name: string;
  readonly shape: readonly number[];
  readonly dtype: RDType;
}

// ---- scanner ----

interface Lex {
  readonly t: string; // token class: v (%var), g (@global), n (number), s (string), w (word), p (punctuation), e (end)
  readonly s: string;
}

const LEX =
  /\s+|\/\/[^\n]*|\/\*[\s\S]*?\*\/|#\[[^\]]*\]|(%[A-Za-z_0-9]+(?:\.[A-Za-z_][A-Za-z_0-9]*)*)|(@[A-Za-z_][A-Za-z_0-9]*)|(\d+(?:\.\d+)?(?:e[-+]?\d+)?(?:f16|f32|f64|i8|i16|i32|i64|u8|f|i|b)?)|("(?:\\.|[^"\\])*")|([A-Za-z_][A-Za-z_0-9]*(?:\.[A-Za-z_][A-Za-z_0-9]*)*)|(->|==|!=|<=|>=|=>|[-+*/<>(){}[\],;:=.?])/y;

function scan(src: string): Lex[] {
  const cut = src.indexOf('#[metadata]');
  const text = cut >= 0 ? src.slice(0, cut) : src;
  const out: Lex[] = [];
  LEX.lastIndex = 0;
  while (LEX.lastIndex < text.length) {
    const at = LEX.lastIndex;
    const m = LEX.exec(text);
    if (!m) throw new Error(`reference: cannot scan at ${JSON.stringify(text.slice(at, at + 20))}`);
    const kinds = ['v', 'g', 'n', 's', 'w', 'p'];
    for (let k = 0; k < kinds.length; k++) if (m[k + 1] !== undefined) out.push({ t: kinds[k]!, s: m[k + 1]! });
  }
  out.push({ t: 'e', s: '' });
  return out;
}

// ---- tree ----

type Node =
  | { readonly n: 'var'; readonly name: string }
  | { readonly n: 'global'; readonly name: string }
  | { readonly n: 'lit'; readonly value: T64 }
  | { readonly n: 'meta'; readonly index: number }
  | { readonly n: 'tuple'; readonly items: readonly Node[] }
  | { readonly n: 'get'; readonly of: Node; readonly index: number }
  | { readonly n: 'op'; readonly op: string; readonly args: readonly Node[]; readonly attrs: Record<string, unknown> }
  | { readonly n: 'apply'; readonly f: Node; readonly args: readonly Node[] }
  | { readonly n: 'if'; readonly cond: Node; readonly then: Node; readonly else: Node }
  | { readonly n: 'seq'; readonly binds: readonly [string, Node][]; readonly last: Node }
  | FnNode;
interface FnNode {
  readonly n: 'fn';
  readonly params: readonly RefParam[];
  readonly body: Node;
}

const SUFFIX_DTYPE: Record<string, RDType> = {
  f16: 'float16',
  f32: 'float32',
  f64: 'float64',
  f: 'float32',
  i8: 'int8',
  i16: 'int16',
  i32: 'int32',
  i64: 'int64',
  i: 'int32',
  u8: 'uint8',
  b: 'bool',
};
const INFIX: Record<string, [number, string]> = {
  '==': [1, 'equal'],
  '!=': [1, 'not_equal'],
  '<': [1, 'less'],
  '>': [1, 'greater'],
  '<=': [1, 'less_equal'],
  '>=': [1, 'greater_equal'],
  '+': [2, 'add'],
  '-': [2, 'subtract'],
  '*': [3, 'multiply'],
  '/': [3, 'divide'],
};

class Reader {
  k = 0;
  readonly defs = new Map<string, FnNode>();
  constructor(private readonly toks: Lex[]) {}
  get cur(): Lex {
    return this.toks[this.k]!;
  }
  take(s?: string): Lex {
    const x = this.toks[this.k++]!;
    if (s !== undefined && x.s !== s) throw new Error(`reference: wanted ${s}, got ${x.s || 'end'}`);
    return x;
  }
  at(s: string): boolean {
    return this.cur.t !== 's' && this.cur.s === s;
  }

  module(): FnNode {
    let main: FnNode | undefined;
    while (this.cur.t !== 'e') {
      if (this.at('def')) {
        this.take();
        const name = this.take().s.slice(1);
        const f = this.fnRest();
        this.defs.set(name, f);
        if (name === 'main' || !main) main = f;
      } else if (this.at('fn')) {
        main = this.expr() as FnNode;
      } else if (this.at('type')) throw new Error('reference: algebraic data types (type, match) are not evaluated');
      else throw new Error(`reference: unsupported top-level ${this.cur.s}`);
    }
    if (this.defs.has('main')) main = this.defs.get('main');
    if (!main) throw new Error('reference: no function');
    return main;
  }

  skipType(): void {
    // A type: words, brackets, tuples, fn(A) -> B; stop at , ) { = or a top-level attr.
    let depth = 0;
    for (;;) {
      const s = this.cur.s;
      if (depth === 0 && (s === ',' || s === ')' || s === '{' || s === '=' || s === ';')) return;
      if (s === '(' || s === '[') depth++;
      if (s === ')' || s === ']') depth--;
      this.take();
    }
  }

  paramType(): { shape: number[]; dtype: RDType } {
    if (this.at('Tensor')) {
      this.take();
      this.take('[');
      this.take('(');
      const shape: number[] = [];
      while (!this.at(')')) {
        const d = this.take();
        shape.push(d.s === '?' ? -1 : Number(d.s));
        if (this.at(',')) this.take();
      }
      this.take(')');
      this.take(',');
      const dtype = this.take().s as RDType;
      this.take(']');
      return { shape, dtype };
    }
    const w = this.cur.s;
    if (['int', 'int32', 'int64', 'bool', 'float32', 'float64', 'float16'].includes(w)) {
      this.take();
      return { shape: [], dtype: (w === 'int' ? 'int32' : w) as RDType };
    }
    this.skipType();
    return { shape: [], dtype: 'float32' };
  }

  fnRest(): FnNode {
    if (this.at('[')) {
      while (!this.at(']')) this.take();
      this.take(']');
    }
    this.take('(');
    const params: RefParam[] = [];
    while (!this.at(')')) {
      if (this.cur.t === 'v') {
        const name = this.take().s.slice(1);
        if (this.at('{')) while (this.take().s !== '}');
        let ty = { shape: [] as number[], dtype: 'float32' as RDType };
        if (this.at(':')) {
          this.take();
          ty = this.paramType();
        }
        params.push({ name, ...ty });
      } else {
        this.take(); // attribute name
        this.take('=');
        this.attrValue();
      }
      if (this.at(',')) this.take();
    }
    this.take(')');
    if (this.at('->')) {
      this.take();
      this.skipType();
    }
    this.take('{');
    const body = this.block();
    this.take('}');
    return { n: 'fn', params, body };
  }

  block(): Node {
    const binds: [string, Node][] = [];
    for (;;) {
      if (this.at('let')) {
        this.take();
        const name = this.take().s.slice(1);
        if (this.at(':')) {
          this.take();
          this.skipType();
        }
        this.take('=');
        binds.push([name, this.expr()]);
        this.take(';');
      } else if (this.cur.t === 'v' && this.toks[this.k + 1]!.s === '=') {
        const name = this.take().s.slice(1);
        this.take('=');
        binds.push([name, this.expr()]);
        this.take(';');
      } else break;
    }
    const last = this.expr();
    return binds.length ? { n: 'seq', binds, last } : last;
  }

  expr(minPrec = 0): Node {
    let lhs = this.postfix();
    for (;;) {
      const inf = INFIX[this.cur.s];
      if (this.cur.t !== 'p' || !inf || inf[0] <= minPrec) return lhs;
      this.take();
      const rhs = this.expr(inf[0]);
      lhs = { n: 'op', op: inf[1], args: [lhs, rhs], attrs: {} };
    }
  }

  postfix(): Node {
    let e = this.atom();
    for (;;) {
      if (this.at('(')) {
        e = { n: 'apply', f: e, args: this.callArgs().args };
      } else if (this.at('.') && this.toks[this.k + 1]!.t === 'n') {
        this.take();
        e = { n: 'get', of: e, index: Number(this.take().s) };
      } else return e;
    }
  }

  callArgs(): { args: Node[]; attrs: Record<string, unknown> } {
    this.take('(');
    const args: Node[] = [];
    const attrs: Record<string, unknown> = {};
    while (!this.at(')')) {
      if (this.cur.t === 'w' && this.toks[this.k + 1]!.s === '=') {
        const key = this.take().s;
        this.take('=');
        attrs[key] = this.attrValue();
      } else args.push(this.expr());
      if (this.at(',')) this.take();
    }
    this.take(')');
    return { args, attrs };
  }

  attrValue(): unknown {
    const x = this.take();
    if (x.t === 's') return JSON.parse(x.s);
    if (x.t === 'n') return parseFloat(x.s);
    if (x.s === '-') return -(this.attrValue() as number);
    if (x.s === 'True' || x.s === 'False') return x.s === 'True';
    if (x.s === 'None') return null;
    if (x.s === 'meta') {
      this.take('[');
      this.take();
      this.take(']');
      this.take('[');
      this.take();
      this.take(']');
      return 'meta';
    }
    if (x.s === '[' || x.s === '(') {
      const end = x.s === '[' ? ']' : ')';
      const list: unknown[] = [];
      while (!this.at(end)) {
        list.push(this.attrValue());
        if (this.at(',')) this.take();
      }
      this.take(end);
      return list;
    }
    throw new Error(`reference: attr value ${x.s}`);
  }

  atom(): Node {
    const x = this.cur;
    if (x.t === 'v') {
      this.take();
      const dot = x.s.indexOf('.');
      return { n: 'var', name: dot < 0 ? x.s.slice(1) : x.s.slice(1) };
    }
    if (x.t === 'g') {
      this.take();
      return { n: 'global', name: x.s.slice(1) };
    }
    if (x.t === 'n' || (x.s === '-' && this.toks[this.k + 1]!.t === 'n')) {
      let neg = 1;
      if (x.s === '-') {
        this.take();
        neg = -1;
      }
      const lit = this.take().s;
      const m = /(f16|f32|f64|i8|i16|i32|i64|u8|f|i|b)$/.exec(lit);
      const num = parseFloat(m ? lit.slice(0, m.index) : lit) * neg;
      const dtype: RDType = m ? SUFFIX_DTYPE[m[1]!]! : /[.e]/.test(lit) ? 'float32' : 'int32';
      return { n: 'lit', value: scalar(num, dtype) };
    }
    if (x.s === 'True' || x.s === 'False') {
      this.take();
      return { n: 'lit', value: scalar(x.s === 'True' ? 1 : 0, 'bool') };
    }
    if (x.s === 'meta') {
      this.take();
      this.take('[');
      const kind = this.take().s;
      this.take(']');
      this.take('[');
      const index = Number(this.take().s);
      this.take(']');
      if (kind !== 'relay.Constant') throw new Error(`reference: meta ${kind}`);
      return { n: 'meta', index };
    }
    if (x.s === 'fn') {
      this.take();
      return this.fnRest();
    }
    if (x.s === 'if') {
      this.take();
      this.take('(');
      const cond = this.expr();
      this.take(')');
      this.take('{');
      const then = this.block();
      this.take('}');
      this.take('else');
      this.take('{');
      const other = this.block();
      this.take('}');
      return { n: 'if', cond, then, else: other };
    }
    if (x.s === '(') {
      this.take();
      const items: Node[] = [];
      let comma = false;
      while (!this.at(')')) {
        items.push(
          this.at('let') || (this.cur.t === 'v' && this.toks[this.k + 1]!.s === '=') ? this.block() : this.expr(),
        );
        if (this.at(',')) {
          this.take();
          comma = true;
        }
      }
      this.take(')');
      return items.length === 1 && !comma ? items[0]! : { n: 'tuple', items };
    }
    if (x.t === 'w') {
      this.take();
      const { args, attrs } = this.callArgs();
      return { n: 'op', op: x.s.replace(/^raf\.op\./, 'raf.'), args, attrs };
    }
    throw new Error(`reference: unsupported syntax at ${x.s || 'end'}`);
  }
}

// ---- tensors ----

function scalar(v: number, dtype: RDType): T64 {
  return { shape: [], dtype, data: Float64Array.of(v) };
}
const size = (s: readonly number[]): number => s.reduce((a, b) => a * b, 1);
function strides(s: readonly number[]): number[] {
  const st = new Array<number>(s.length);
  let acc = 1;
  for (let i = s.length - 1; i >= 0; i--) {
    st[i] = acc;
    acc *= s[i]!;
  }
  return st;
}

/** Rounds to what `dtype` can hold (float32/float16 rounding, integer wrap), as a device computing in it would. */
export function roundTo(dtype: RDType, v: number): number {
  switch (dtype) {
    case 'float32':
      return Math.fround(v);
    case 'float16':
      return f16(v);
    case 'bool':
      return v ? 1 : 0;
    case 'int8':
      return ((Math.trunc(v) << 24) >> 24) | 0;
    case 'uint8':
      return Math.trunc(v) & 255;
    case 'int16':
      return ((Math.trunc(v) << 16) >> 16) | 0;
    case 'int32':
      return Math.trunc(v) | 0;
    case 'int64':
      return Math.trunc(v);
    default:
      return v;
  }
}
function f16(v: number): number {
  if (!Number.isFinite(v) || v === 0) return v;
  const a = Math.abs(v);
  if (a >= 65520) return Math.sign(v) * Infinity;
  const e = Math.max(Math.floor(Math.log2(a)), -14);
  const q = 2 ** (e - 10);
  let r = Math.round(a / q);
  // round half to even
  if (Math.abs(a / q - Math.trunc(a / q) - 0.5) < 1e-12 && r % 2 === 1) r -= 1;
  return Math.sign(v) * r * q;
}

/** TVM's round (llvm.round): ties away from zero. */
function halfAway(v: number): number {
  const a = Math.abs(v);
  const f = Math.floor(a);
  return Math.sign(v) * (a - f >= 0.5 ? f + 1 : f);
}

function mk(shape: readonly number[], dtype: RDType, f: (i: number) => number): T64 {
  const data = new Float64Array(size(shape));
  for (let i = 0; i < data.length; i++) data[i] = f(i);
  return { shape: [...shape], dtype, data };
}

function isInt(d: RDType): boolean {
  return d.startsWith('int') || d === 'uint8';
}

function bshape(a: readonly number[], b: readonly number[]): number[] {
  const n = Math.max(a.length, b.length);
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const x = a[a.length - n + i] ?? 1;
    const y = b[b.length - n + i] ?? 1;
    if (x !== y && x !== 1 && y !== 1) throw new Error(`reference: cannot broadcast ${a} with ${b}`);
    out.push(x === 1 ? y : x);
  }
  return out;
}
function bindex(out: readonly number[], from: readonly number[]): (i: number) => number {
  const os = strides(out);
  const fs = strides(from);
  const off = out.length - from.length;
  return (i) => {
    let j = 0;
    for (let d = 0; d < from.length; d++) {
      const c = Math.floor(i / os[d + off]!) % out[d + off]!;
      if (from[d] !== 1) j += c * fs[d]!;
    }
    return j;
  };
}
/** For each element of `out`, the flat index of the element of `from` (broadcast to `out`) it reads. */
function gatherIndex(out: readonly number[], from: readonly number[]): Int32Array {
  const n = size(out);
  const idx = new Int32Array(n);
  const fs = strides(from);
  const off = out.length - from.length;
  const step = out.map((_, d) => (d < off || from[d - off] === 1 ? 0 : fs[d - off]!));
  const c = new Array<number>(out.length).fill(0);
  let j = 0;
  for (let i = 0; i < n; i++) {
    idx[i] = j;
    for (let d = out.length - 1; d >= 0; d--) {
      c[d]!++;
      j += step[d]!;
      if (c[d]! < out[d]!) break;
      j -= step[d]! * out[d]!;
      c[d] = 0;
    }
  }
  return idx;
}
function rounder(dt: RDType): (v: number) => number {
  return dt === 'float64' ? (v) => v : dt === 'float32' ? Math.fround : (v) => roundTo(dt, v);
}
function binary(a: T64, b: T64, f: (x: number, y: number) => number, outDtype?: RDType): T64 {
  const shape = bshape(a.shape, b.shape);
  const n = size(shape);
  const ia = a.data.length === n ? null : gatherIndex(shape, a.shape);
  const ib = b.data.length === n ? null : gatherIndex(shape, b.shape);
  const dt = outDtype ?? a.dtype;
  const r = rounder(dt);
  const out = new Float64Array(n);
  const ad = a.data;
  const bd = b.data;
  for (let i = 0; i < n; i++) out[i] = r(f(ad[ia ? ia[i]! : i]!, bd[ib ? ib[i]! : i]!));
  return { shape, dtype: dt, data: out };
}
function unary(a: T64, f: (x: number) => number): T64 {
  const r = rounder(a.dtype);
  const out = new Float64Array(a.data.length);
  for (let i = 0; i < out.length; i++) out[i] = r(f(a.data[i]!));
  return { shape: a.shape, dtype: a.dtype, data: out };
}
function axisOf(a: number, n: number): number {
  return a < 0 ? a + n : a;
}
function transpose(x: T64, axes: readonly number[]): T64 {
  if (axes.every((a, i) => a === i)) return x;
  const shape = axes.map((a) => x.shape[a]!);
  const xs = strides(x.shape);
  const step = axes.map((a) => xs[a]!);
  const n = shape.length;
  const out = new Float64Array(x.data.length);
  const idx = new Array<number>(n).fill(0);
  let j = 0;
  for (let i = 0; i < out.length; i++) {
    out[i] = x.data[j]!;
    // odometer over the output's coordinates, moving j by the input's strides
    for (let d = n - 1; d >= 0; d--) {
      idx[d]!++;
      j += step[d]!;
      if (idx[d]! < shape[d]!) break;
      j -= step[d]! * shape[d]!;
      idx[d] = 0;
    }
  }
  return { shape, dtype: x.dtype, data: out };
}
function reshape(x: T64, shape: readonly number[]): T64 {
  return { shape, dtype: x.dtype, data: x.data };
}
function reduce(x: T64, axisAttr: unknown, keep: boolean, f: (vals: number[]) => number, exclude = false): T64 {
  const n = x.shape.length;
  let axes: number[] =
    axisAttr === null || axisAttr === undefined
      ? [...Array(n).keys()]
      : (Array.isArray(axisAttr) ? axisAttr : [axisAttr]).map((a: number) => axisOf(a, n));
  if (exclude) axes = [...Array(n).keys()].filter((a) => !axes.includes(a));
  const kept = x.shape.map((d, i) => (axes.includes(i) ? 1 : d));
  const groups = new Map<number, number[]>();
  const xs = strides(x.shape);
  const ks = strides(kept);
  for (let i = 0; i < x.data.length; i++) {
    let o = 0;
    for (let d = 0; d < n; d++) if (!axes.includes(d)) o += (Math.floor(i / xs[d]!) % x.shape[d]!) * ks[d]!;
    let g = groups.get(o);
    if (!g) groups.set(o, (g = []));
    g.push(x.data[i]!);
  }
  const shape = keep ? kept : x.shape.filter((_, i) => !axes.includes(i));
  return mk(shape, x.dtype, (i) => roundTo(x.dtype, f(groups.get(i)!)));
}

/** Index of a 4-D NCHW-ordered coordinate in `layout` ("NCHW", "NHWC", "OIHW", "HWIO", ...). */
function toLayout(x: T64, from: string, to: string): T64 {
  return transpose(
    x,
    [...to].map((c) => from.indexOf(c)),
  );
}

function conv2d(x0: T64, w0: T64, at: Record<string, unknown>): T64 {
  const dl = (at.data_layout as string) ?? 'NCHW';
  const kl = (at.kernel_layout as string) ?? 'OIHW';
  const x = toLayout(x0, dl, 'NCHW');
  const w = toLayout(w0, kl, 'OIHW');
  const [N, C, H, W] = x.shape as number[];
  const [O, CG, KH, KW] = w.shape as number[];
  const g = (at.groups as number) ?? 1;
  const [sh, sw] = (at.strides as number[]) ?? [1, 1];
  const [dh, dw] = (at.dilation as number[]) ?? [1, 1];
  let p = (at.padding as number[]) ?? [0, 0, 0, 0];
  if (p.length === 1) p = [p[0]!, p[0]!, p[0]!, p[0]!];
  if (p.length === 2) p = [p[0]!, p[1]!, p[0]!, p[1]!];
  const OH = Math.floor((H! + p[0]! + p[2]! - dh! * (KH! - 1) - 1) / sh!) + 1;
  const OW = Math.floor((W! + p[1]! + p[3]! - dw! * (KW! - 1) - 1) / sw!) + 1;
  const od = (at.out_dtype as RDType) || x.dtype;
  const out = new Float64Array(N! * O! * OH * OW);
  const og = O! / g;
  const xd = x.data;
  const wd = w.data;
  const [pt, pl] = [p[0]!, p[1]!];
  const [hh, ww, kh0, kw0, sy, sx, dy, dx] = [H!, W!, KH!, KW!, sh!, sw!, dh!, dw!];
  // Accumulate weight by weight over whole output rows (the order changes nothing in float64 at these sizes).
  for (let n = 0; n < N!; n++)
    for (let o = 0; o < O!; o++) {
      const c0 = Math.floor(o / og) * CG!;
      const ob = (n * O! + o) * OH * OW;
      for (let c = 0; c < CG!; c++) {
        const xb = (n * C! + c0 + c) * hh * ww;
        for (let kh = 0; kh < kh0; kh++)
          for (let kw = 0; kw < kw0; kw++) {
            const wv = wd[((o * CG! + c) * kh0 + kh) * kw0 + kw]!;
            for (let oh = 0; oh < OH; oh++) {
              const ih = oh * sy - pt + kh * dy;
              if (ih < 0 || ih >= hh) continue;
              const xr = xb + ih * ww;
              const orow = ob + oh * OW;
              for (let ow = 0; ow < OW; ow++) {
                const iw = ow * sx - pl + kw * dx;
                if (iw >= 0 && iw < ww) out[orow + ow] += wv * xd[xr + iw]!;
              }
            }
          }
      }
    }
  for (let i = 0; i < out.length; i++) out[i] = roundTo(od, out[i]!);
  return toLayout({ shape: [N!, O!, OH, OW], dtype: od, data: out }, 'NCHW', dl);
}

function pool(x0: T64, at: Record<string, unknown>, kind: 'max' | 'avg'): T64 {
  const layout = (at.layout as string) ?? 'NCHW';
  const x = toLayout(x0, layout, 'NCHW');
  const [N, C, H, W] = x.shape as number[];
  const [KH, KW] = (at.pool_size as number[]) ?? [1, 1];
  const [sh, sw] = (at.strides as number[]) ?? [1, 1];
  let p = (at.padding as number[]) ?? [0, 0, 0, 0];
  if (p.length === 2) p = [p[0]!, p[1]!, p[0]!, p[1]!];
  const OH = Math.floor((H! + p[0]! + p[2]! - KH!) / sh!) + 1;
  const OW = Math.floor((W! + p[1]! + p[3]! - KW!) / sw!) + 1;
  const out = mk([N!, C!, OH, OW], x.dtype, (i) => {
    const ow = i % OW;
    const oh = Math.floor(i / OW) % OH;
    const nc = Math.floor(i / (OW * OH));
    let best = -Infinity;
    let sum = 0;
    let cnt = 0;
    for (let kh = 0; kh < KH!; kh++)
      for (let kw = 0; kw < KW!; kw++) {
        const ih = oh * sh! - p[0]! + kh;
        const iw = ow * sw! - p[1]! + kw;
        if (ih < 0 || iw < 0 || ih >= H! || iw >= W!) continue;
        const v = x.data[(nc * H! + ih) * W! + iw]!;
        best = Math.max(best, v);
        sum += v;
        cnt++;
      }
    return roundTo(x.dtype, kind === 'max' ? best : sum / (at.count_include_pad ? KH! * KW! : cnt));
  });
  return toLayout(out, 'NCHW', layout);
}

function matmul(a0: T64, b0: T64, ta: boolean, tb: boolean, dt: RDType): T64 {
  // a [..., M, K] (or [..., K, M] when ta), b [..., K, N] (or [..., N, K] when tb); batch dims broadcast.
  const swap = (t: T64): T64 => {
    const n = t.shape.length;
    return transpose(
      t,
      [...Array(n).keys()].map((i) => (i === n - 2 ? n - 1 : i === n - 1 ? n - 2 : i)),
    );
  };
  const a = ta ? swap(a0) : a0; // [..., M, K]
  const bt = tb ? b0 : swap(b0); // [..., N, K]
  const M = a.shape.at(-2)!;
  const K = a.shape.at(-1)!;
  const N = bt.shape.at(-2)!;
  if (bt.shape.at(-1) !== K) throw new Error(`reference: matmul inner sizes ${K} and ${bt.shape.at(-1)}`);
  const batch = bshape(a.shape.slice(0, -2), bt.shape.slice(0, -2));
  const ia = bindex(batch, a.shape.slice(0, -2));
  const ib = bindex(batch, bt.shape.slice(0, -2));
  const nb = size(batch);
  const out = new Float64Array(nb * M * N);
  const ad = a.data;
  const bd = bt.data;
  for (let q = 0; q < nb; q++) {
    const ao = ia(q) * M * K;
    const bo = ib(q) * N * K;
    for (let m = 0; m < M; m++) {
      const ar = ao + m * K;
      for (let n = 0; n < N; n++) {
        const br = bo + n * K;
        let s = 0;
        for (let k = 0; k < K; k++) s += ad[ar + k]! * bd[br + k]!;
        out[(q * M + m) * N + n] = roundTo(dt, s);
      }
    }
  }
  return { shape: [...batch, M, N], dtype: dt, data: out };
}

function asTensor(v: RValue, what: string): T64 {
  if (Array.isArray(v) || !('data' in (v as object))) throw new Error(`reference: ${what} is not a tensor`);
  return v as T64;
}

// --- TVM's qnn arithmetic, element by element (int64 products in BigInt) ---

const QRANGE: Readonly<Record<string, readonly [number, number]>> = {
  int8: [-128, 127],
  uint8: [0, 255],
  int16: [-32768, 32767],
  uint16: [0, 65535],
  int32: [-(2 ** 31), 2 ** 31 - 1],
};

/** frexp from the float64 bits, then the significand times 2^31 rounded half away (TVM's GetFixedPointMultiplierShift). */
function qnnFixedPoint(x: number): [number, number] {
  if (x === 0) return [0, 0];
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, x);
  const biased = (view.getUint16(0) >> 4) & 0x7ff;
  const e = biased - 1022; // x = sig · 2^e with sig in [0.5, 1)
  let m = halfAway((x / 2 ** e) * 2 ** 31);
  let shift = e;
  if (m === 2 ** 31) [m, shift] = [2 ** 30, e + 1];
  return [m, shift];
}

/** ((x << ls) · m + round) >> (31 + rs) in exact integers; TONEAREST rounds a negative product's tie down. */
function qnnShift(x: number, m: number, ls: number, rs: number, toNearest: boolean): number {
  const total = BigInt(31 + rs);
  const v = (BigInt(x) << BigInt(ls)) * BigInt(m);
  const r = (1n << (total - 1n)) - (toNearest && v < 0n ? 1n : 0n);
  return Number((v + r) >> total);
}

function qnnMultiplyShift(x: number, multiplier: number, toNearest: boolean): number {
  const [m, e] = qnnFixedPoint(multiplier);
  return qnnShift(x, m, Math.max(e, 0), Math.max(-e, 0), toNearest);
}

const int32Of = (v: number) => Number(BigInt.asIntN(32, BigInt(Math.trunc(v))));

/** The channel of element i along axis a of shape (0 for a per-tensor parameter). */
function channelOf(shape: readonly number[], axis: number, i: number, count: number): number {
  if (count <= 1) return 0;
  return Math.floor(i / size(shape.slice(axis + 1))) % shape[axis]!;
}

interface QRequant {
  inScale: number[];
  inZero: number[];
  outScale: number;
  outZero: number;
  axis: number;
  rounding: string;
  compute: string;
  out: RDType;
}

function qnnRequantize(x: T64, q: QRequant): T64 {
  const axis = x.shape.length ? axisOf(q.axis, x.shape.length) : 0;
  const F = Math.fround;
  const same = q.inScale.length === 1 && F(q.inScale[0]!) === F(q.outScale);
  const clipTo = (v: number) => {
    if (q.out === 'int32') return int32Of(v);
    const [lo, hi] = QRANGE[q.out]!;
    return Math.min(Math.max(int32Of(v), lo), hi);
  };
  return mk(x.shape, q.out, (i) => {
    const ch = channelOf(x.shape, axis, i, Math.max(q.inScale.length, q.inZero.length));
    const s = q.inScale[Math.min(ch, q.inScale.length - 1)]!;
    const z = q.inZero[Math.min(ch, q.inZero.length - 1)]!;
    const multiplier = F(s) / F(q.outScale);
    if (q.compute === 'int64') {
      let v = int32Of(x.data[i]!) - z;
      if (!same) v = qnnMultiplyShift(v, multiplier, q.rounding === 'TONEAREST');
      return clipTo(v + q.outZero);
    }
    const r = q.compute === 'float32' ? F : (v: number) => v;
    let v = r(r(x.data[i]!) - z);
    if (!same) v = r(v * r(multiplier));
    v = r(v + q.outZero);
    v = q.rounding === 'UPWARD' ? Math.floor(r(v + 0.5)) : halfAway(v);
    return clipTo(v);
  });
}

const qnnDefault = (v: unknown, d: string) => (v === undefined || v === null || v === 'None' ? d : String(v));
const qnnValues = (v: RValue): number[] => Array.from(asTensor(v, 'qnn parameter').data);

/** Relay's newshape codes against the input's dims: 0 copy, -1 infer, -2 copy the rest, -3 merge two, -4 split one. */
function newShape(input: readonly number[], ns: readonly number[]): number[] {
  const out: number[] = [];
  let k = 0;
  let minus = -1;
  for (let i = 0; i < ns.length; i++) {
    const d = ns[i]!;
    if (d === 0) out.push(input[k++]!);
    else if (d === -1) {
      minus = out.length;
      out.push(-1);
      k++;
    } else if (d === -2) (out.push(...input.slice(k)), (k = input.length));
    else if (d === -3) (out.push(input[k]! * input[k + 1]!), (k += 2));
    else if (d === -4) {
      const [a, b] = [ns[++i]!, ns[++i]!];
      const whole = input[k++]!;
      out.push(a === -1 ? whole / b : a, b === -1 ? whole / a : b);
    } else (out.push(d), k++);
  }
  if (minus >= 0) out[minus] = size(input) / out.reduce((p, q, j) => (j === minus ? p : p * q), 1);
  return out;
}

function callOp(op: string, vs: RValue[], at: Record<string, unknown>): RValue {
  const t = (i: number): T64 => asTensor(vs[i]!, `${op} argument ${i}`);
  const cmp = (f: (x: number, y: number) => boolean): T64 => binary(t(0), t(1), (x, y) => (f(x, y) ? 1 : 0), 'bool');
  switch (op) {
    case 'add':
      return binary(t(0), t(1), (x, y) => x + y);
    case 'subtract':
      return binary(t(0), t(1), (x, y) => x - y);
    case 'multiply':
      return binary(t(0), t(1), (x, y) => x * y);
    case 'divide':
      return binary(t(0), t(1), (x, y) => (isInt(t(0).dtype) ? Math.trunc(x / y) : x / y));
    case 'power':
      return binary(t(0), t(1), (x, y) => x ** y);
    case 'maximum':
      return binary(t(0), t(1), Math.max);
    case 'minimum':
      return binary(t(0), t(1), Math.min);
    case 'equal':
      return cmp((x, y) => x === y);
    case 'not_equal':
      return cmp((x, y) => x !== y);
    case 'less':
      return cmp((x, y) => x < y);
    case 'greater':
      return cmp((x, y) => x > y);
    case 'less_equal':
      return cmp((x, y) => x <= y);
    case 'greater_equal':
      return cmp((x, y) => x >= y);
    case 'logical_and':
      return cmp((x, y) => x !== 0 && y !== 0);
    case 'sqrt':
      return unary(t(0), Math.sqrt);
    case 'rsqrt':
      return unary(t(0), (x) => 1 / Math.sqrt(x));
    case 'tanh':
      return unary(t(0), Math.tanh);
    case 'exp':
      return unary(t(0), Math.exp);
    case 'log':
      if (isInt(t(0).dtype)) throw new Error('reference: log of an integer tensor has no defined value');
      return unary(t(0), Math.log);
    case 'abs':
      return unary(t(0), Math.abs);
    case 'negative':
      return unary(t(0), (x) => -x);
    case 'sigmoid':
      return unary(t(0), (x) => 1 / (1 + Math.exp(-x)));
    case 'nn.relu':
      return unary(t(0), (x) => Math.max(x, 0));
    case 'nn.leaky_relu': {
      const alpha = (at.alpha as number) ?? 0.25;
      return unary(t(0), (x) => (x > 0 ? x : x * alpha));
    }
    case 'copy':
    case 'on_device':
    case 'stop_fusion':
      return t(0);
    case 'zeros_like':
      return mk(t(0).shape, t(0).dtype, () => 0);
    case 'ones_like':
      return mk(t(0).shape, t(0).dtype, () => 1);
    case 'collapse_sum_like': {
      const x = t(0);
      const like = t(1).shape;
      const lead = x.shape.length - like.length;
      const axes = x.shape.map((_, i) => i).filter((i) => i < lead || (like[i - lead] === 1 && x.shape[i] !== 1));
      const s = reduce(x, axes, true, (v) => v.reduce((a, b) => a + b, 0));
      return reshape(s, like);
    }
    case 'cast':
      return mk(t(0).shape, at.dtype as RDType, (i) => roundTo(at.dtype as RDType, t(0).data[i]!));
    case 'reshape':
      return reshape(t(0), newShape(t(0).shape, at.newshape as number[]));
    case 'contrib_reverse_reshape': {
      const x = t(0);
      return reshape(x, newShape([...x.shape].reverse(), [...(at.newshape as number[])].reverse()).reverse());
    }
    case 'transpose': {
      const x = t(0);
      const axes = (at.axes as number[] | null) ?? [...x.shape.keys()].reverse();
      return transpose(
        x,
        axes.map((a) => axisOf(a, x.shape.length)),
      );
    }
    case 'expand_dims': {
      const x = t(0);
      const n = (at.num_newaxis as number) ?? 1;
      const a = axisOf(at.axis as number, x.shape.length + 1);
      return reshape(x, [...x.shape.slice(0, a), ...Array<number>(n).fill(1), ...x.shape.slice(a)]);
    }
    case 'squeeze': {
      const x = t(0);
      const axes = (at.axis as number[] | null | undefined)?.map((a) => axisOf(a, x.shape.length));
      return reshape(
        x,
        x.shape.filter((d, i) => (axes ? !axes.includes(i) : d !== 1)),
      );
    }
    case 'concatenate': {
      const xs = (vs[0] as RValue[]).map((v) => asTensor(v, 'concatenate item'));
      const n = xs[0]!.shape.length;
      const a = axisOf((at.axis as number) ?? 0, n);
      const shape = [...xs[0]!.shape];
      shape[a] = xs.reduce((s, x) => s + x.shape[a]!, 0);
      const outer = size(shape.slice(0, a));
      const inner = size(shape.slice(a + 1));
      const data: number[] = [];
      for (let o = 0; o < outer; o++)
        for (const x of xs) {
          const len = x.shape[a]! * inner;
          for (let j = 0; j < len; j++) data.push(x.data[o * len + j]!);
        }
      return { shape, dtype: xs[0]!.dtype, data: Float64Array.from(data) };
    }
    case 'split': {
      const x = t(0);
      const a = axisOf((at.axis as number) ?? 0, x.shape.length);
      const ios = at.indices_or_sections as number | number[];
      const cuts = Array.isArray(ios)
        ? [0, ...ios, x.shape[a]!]
        : Array.from({ length: ios + 1 }, (_, i) => (i * x.shape[a]!) / ios);
      const parts: T64[] = [];
      for (let k = 0; k + 1 < cuts.length; k++) parts.push(slice(x, a, cuts[k]!, cuts[k + 1]!));
      return parts;
    }
    case 'strided_slice': {
      let x = t(0);
      const b = at.begin as number[];
      const e = at.end as number[];
      const axes = (at.axes as number[] | null) ?? b.map((_, i) => i);
      axes.forEach((ax, i) => {
        const d = x.shape[ax]!;
        const lo = Math.max(0, b[i]! < 0 ? b[i]! + d : Math.min(b[i]!, d));
        const hi = Math.min(d, e[i]! < 0 ? e[i]! + d : e[i]!);
        x = slice(x, ax, lo, hi);
      });
      return x;
    }
    case 'take': {
      let x = t(0);
      const idx = t(1);
      let a = at.axis as number | null | undefined;
      if (a === null || a === undefined) {
        x = reshape(x, [size(x.shape)]);
        a = 0;
      }
      a = axisOf(a, x.shape.length);
      const d = x.shape[a]!;
      const outer = size(x.shape.slice(0, a));
      const inner = size(x.shape.slice(a + 1));
      const shape = [...x.shape.slice(0, a), ...idx.shape, ...x.shape.slice(a + 1)];
      const ni = idx.data.length;
      return mk(shape, x.dtype, (i) => {
        const r = i % inner;
        const k = Math.floor(i / inner) % ni;
        const o = Math.floor(i / (inner * ni));
        let j = idx.data[k]!;
        j = at.mode === 'wrap' ? ((j % d) + d) % d : Math.min(Math.max(j < 0 ? j + d : j, 0), d - 1);
        return x.data[(o * d + j) * inner + r]!;
      });
    }
    case 'where':
      return mk(bshape(bshape(t(0).shape, t(1).shape), t(2).shape), t(1).dtype, (i) => {
        const shape = bshape(bshape(t(0).shape, t(1).shape), t(2).shape);
        return t(0).data[bindex(shape, t(0).shape)(i)]
          ? t(1).data[bindex(shape, t(1).shape)(i)]!
          : t(2).data[bindex(shape, t(2).shape)(i)]!;
      });
    case 'mean':
    case 'sum':
    case 'max':
    case 'min':
    case 'prod': {
      const f =
        op === 'mean'
          ? (v: number[]) => v.reduce((a, b) => a + b, 0) / v.length
          : op === 'sum'
            ? (v: number[]) => v.reduce((a, b) => a + b, 0)
            : op === 'max'
              ? (v: number[]) => Math.max(...v)
              : op === 'min'
                ? (v: number[]) => Math.min(...v)
                : (v: number[]) => v.reduce((a, b) => a * b, 1);
      return reduce(t(0), at.axis, Boolean(at.keepdims), f, Boolean(at.exclude));
    }
    case 'nn.softmax':
    case 'nn.log_softmax': {
      const x = t(0);
      const a = axisOf((at.axis as number) ?? -1, x.shape.length);
      const inner = size(x.shape.slice(a + 1));
      const d = x.shape[a]!;
      return mk(x.shape, x.dtype, (i) => {
        const r = i % inner;
        const o = Math.floor(i / (inner * d));
        let m = -Infinity;
        for (let k = 0; k < d; k++) m = Math.max(m, x.data[(o * d + k) * inner + r]!);
        let s = 0;
        for (let k = 0; k < d; k++) s += Math.exp(x.data[(o * d + k) * inner + r]! - m);
        const v = x.data[i]! - m;
        return roundTo(x.dtype, op === 'nn.softmax' ? Math.exp(v) / s : v - Math.log(s));
      });
    }
    case 'nn.conv2d':
      return conv2d(t(0), t(1), at);
    case 'nn.max_pool2d':
      return pool(t(0), at, 'max');
    case 'nn.avg_pool2d':
      return pool(t(0), at, 'avg');
    case 'nn.global_avg_pool2d':
    case 'nn.global_max_pool2d': {
      const x = toLayout(t(0), (at.layout as string) ?? 'NCHW', 'NCHW');
      const f =
        op === 'nn.global_avg_pool2d'
          ? (v: number[]) => v.reduce((a, b) => a + b, 0) / v.length
          : (v: number[]) => Math.max(...v);
      return toLayout(reduce(x, [2, 3], true, f), 'NCHW', (at.layout as string) ?? 'NCHW');
    }
    case 'nn.bias_add': {
      const x = t(0);
      const b = t(1);
      const a = axisOf((at.axis as number) ?? 1, x.shape.length);
      const inner = size(x.shape.slice(a + 1));
      const c = x.shape[a]!;
      const r = rounder(x.dtype);
      return mk(x.shape, x.dtype, (i) => r(x.data[i]! + b.data[Math.floor(i / inner) % c]!));
    }
    case 'nn.batch_norm': {
      const [x, g, b, mu, vr] = [t(0), t(1), t(2), t(3), t(4)];
      const a = axisOf((at.axis as number) ?? 1, x.shape.length);
      const eps = (at.epsilon as number) ?? 1e-5;
      const sh = x.shape.map((d, i) => (i === a ? d : 1));
      const center = at.center ?? true;
      const scale = at.scale ?? true;
      const inner = size(x.shape.slice(a + 1));
      const y = mk(x.shape, x.dtype, (i) => {
        const c = Math.floor(i / inner) % x.shape[a]!;
        const norm = (x.data[i]! - mu.data[c]!) / Math.sqrt(vr.data[c]! + eps);
        return roundTo(x.dtype, norm * (scale ? g.data[c]! : 1) + (center ? b.data[c]! : 0));
      });
      void sh;
      return [y, mu, vr];
    }
    case 'nn.dense': {
      const od = (at.out_dtype as RDType) || t(0).dtype;
      return matmul(t(0), t(1), false, true, od);
    }
    case 'nn.matmul':
      return matmul(t(0), t(1), Boolean(at.transpose_a), Boolean(at.transpose_b), t(0).dtype);
    case 'nn.batch_matmul': {
      const od = (at.out_dtype as RDType) || t(0).dtype;
      return matmul(
        t(0),
        t(1),
        Boolean(at.transpose_a),
        at.transpose_b === undefined ? true : Boolean(at.transpose_b),
        od,
      );
    }
    case 'nn.pad': {
      const x = t(0);
      const pw = at.pad_width as number[][];
      const v = vs[1] ? t(1).data[0]! : ((at.pad_value as number) ?? 0);
      const shape = x.shape.map((d, i) => d + pw[i]![0]! + pw[i]![1]!);
      const xs = strides(x.shape);
      const os = strides(shape);
      return mk(shape, x.dtype, (i) => {
        let j = 0;
        for (let d = 0; d < shape.length; d++) {
          const c = (Math.floor(i / os[d]!) % shape[d]!) - pw[d]![0]!;
          if (c < 0 || c >= x.shape[d]!) return v;
          j += c * xs[d]!;
        }
        return x.data[j]!;
      });
    }
    case 'layout_transform':
      return toLayout(t(0), at.src_layout as string, at.dst_layout as string);
    case 'raf.matmul':
      return matmul(t(0), t(1), false, false, t(0).dtype);
    case 'raf.nll_loss': {
      // RAF's nll_loss(y_true, y_pred): -mean over the batch of y_pred[i, y_true[i]].
      const y = t(0);
      const p = t(1);
      const C = p.shape[1]!;
      let s = 0;
      for (let i = 0; i < y.data.length; i++) s -= p.data[i * C + y.data[i]!]!;
      return scalar(roundTo(p.dtype, s / y.data.length), p.dtype);
    }
    // ---- composite ops raf-op imports through runtime/src/relay-forms.ts, written here from TVM's definitions ----
    case 'nn.batch_flatten':
      return reshape(t(0), [t(0).shape[0]!, size(t(0).shape.slice(1))]);
    case 'nn.dropout':
      return [t(0), mk(t(0).shape, t(0).dtype, () => 1)];
    case 'nn.prelu': {
      const [x, al] = [t(0), t(1)];
      const a = axisOf((at.axis as number) ?? 1, x.shape.length);
      const inner = size(x.shape.slice(a + 1));
      return mk(x.shape, x.dtype, (i) => {
        const v = x.data[i]!;
        return roundTo(x.dtype, v > 0 ? v : al.data[Math.floor(i / inner) % x.shape[a]!]! * v);
      });
    }
    case 'zeros':
    case 'ones':
      return mk((at.shape as number[]) ?? [], (at.dtype as RDType) ?? 'float32', () => (op === 'ones' ? 1 : 0));
    case 'full': {
      const dt = (at.dtype as RDType) ?? t(0).dtype;
      return mk((at.shape as number[]) ?? [], dt, () => roundTo(dt, t(0).data[0]!));
    }
    case 'full_like':
      return mk(t(0).shape, t(0).dtype, () => roundTo(t(0).dtype, t(1).data[0]!));
    case 'broadcast_to': {
      const shape = at.shape as number[];
      return binary(
        t(0),
        mk(shape, t(0).dtype, () => 0),
        (x) => x,
      );
    }
    case 'stack': {
      const xs = (vs[0] as RValue[]).map((v) => asTensor(v, 'stack item'));
      const a = axisOf((at.axis as number) ?? 0, xs[0]!.shape.length + 1);
      const shape = [...xs[0]!.shape.slice(0, a), xs.length, ...xs[0]!.shape.slice(a)];
      const inner = size(xs[0]!.shape.slice(a));
      return mk(shape, xs[0]!.dtype, (i) => {
        const o = Math.floor(i / (inner * xs.length));
        const k = Math.floor(i / inner) % xs.length;
        return xs[k]!.data[o * inner + (i % inner)]!;
      });
    }
    case 'floor_divide':
      return binary(t(0), t(1), (x, y) => Math.floor(x / y));
    case 'mod':
      return binary(t(0), t(1), (x, y) => x % y);
    case 'log2':
      return unary(t(0), Math.log2);
    case 'log10':
      return unary(t(0), Math.log10);
    case 'trunc':
      return unary(t(0), Math.trunc);
    case 'isfinite':
      return mk(t(0).shape, 'bool', (i) => (Number.isFinite(t(0).data[i]!) ? 1 : 0));
    case 'arange': {
      const [start, stop, step] = [t(0).data[0]!, t(1).data[0]!, vs[2] ? t(2).data[0]! : 1];
      const dt = (at.dtype as RDType) ?? 'float32';
      const n = Math.max(0, Math.ceil((stop - start) / step));
      return mk([n], dt, (i) => roundTo(dt, start + i * step));
    }
    case 'shape_of':
      return mk([t(0).shape.length], (at.dtype as RDType) ?? 'int32', (i) => t(0).shape[i]!);
    case 'cast_like':
      return mk(t(0).shape, t(1).dtype, (i) => roundTo(t(1).dtype, t(0).data[i]!));
    case 'reshape_like':
      return reshape(t(0), t(1).shape);
    case 'reverse':
    case 'repeat': {
      const x = t(0);
      const a = axisOf((at.axis as number) ?? 0, x.shape.length);
      const d = x.shape[a]!;
      const k = op === 'repeat' ? (at.repeats as number) : 1;
      const shape = x.shape.map((n, i) => (i === a ? n * k : n));
      const inner = size(x.shape.slice(a + 1));
      return mk(shape, x.dtype, (i) => {
        const j = Math.floor(i / inner) % (d * k);
        const o = Math.floor(i / (inner * d * k));
        const src = op === 'reverse' ? d - 1 - j : Math.floor(j / k);
        return x.data[(o * d + src) * inner + (i % inner)]!;
      });
    }
    case 'variance': {
      const [x, mu] = [t(0), t(1)];
      const d = binary(x, mu, (a, b) => (a - b) * (a - b));
      const axes = (at.axis as number[] | null) ?? [...x.shape.keys()];
      const n = axes.reduce((p, a) => p * x.shape[axisOf(a, x.shape.length)]!, 1);
      return reduce(d, axes, Boolean(at.keepdims), (v) => v.reduce((p, q) => p + q, 0) / (at.unbiased ? n - 1 : n));
    }
    case 'nn.l2_normalize': {
      const x = t(0);
      const ss = reduce(x, (at.axis as number[]) ?? [1], true, (v) => v.reduce((p, q) => p + q * q, 0));
      return binary(x, ss, (v, q) => v / Math.sqrt(Math.max(q, (at.eps as number) ?? 0)));
    }
    case 'nn.instance_norm':
    case 'nn.group_norm': {
      const [x, g, b] = [t(0), t(1), t(2)];
      const [N, C] = [x.shape[0]!, x.shape[1]!];
      const groups = op === 'nn.group_norm' ? (at.num_groups as number) : C;
      const per = (C / groups) * size(x.shape.slice(2));
      const inner = size(x.shape.slice(2));
      const eps = (at.epsilon as number) ?? 1e-5;
      const out = new Float64Array(x.data.length);
      for (let q = 0; q < N * groups; q++) {
        const seg = Array.from(x.data.subarray(q * per, (q + 1) * per));
        const m = seg.reduce((p, v) => p + v, 0) / per;
        const v = seg.reduce((p, u) => p + (u - m) ** 2, 0) / per;
        for (let j = 0; j < per; j++) {
          const ch = Math.floor((q * per + j) / inner) % C;
          const gamma = at.scale === false ? 1 : g.data[ch]!;
          const beta = at.center === false ? 0 : b.data[ch]!;
          out[q * per + j] = roundTo(x.dtype, ((seg[j]! - m) / Math.sqrt(v + eps)) * gamma + beta);
        }
      }
      return { shape: x.shape, dtype: x.dtype, data: out };
    }
    case 'nn.max_pool3d':
    case 'nn.avg_pool3d': {
      const layout = (at.layout as string) ?? 'NCDHW';
      const x = layout === 'NDHWC' ? transpose(t(0), [0, 4, 1, 2, 3]) : t(0);
      const [N, C, D, H, W] = x.shape as number[];
      const three = (v: unknown, d: number) =>
        ((v as number[]) ?? [d]).length === 1 ? Array(3).fill(((v as number[]) ?? [d])[0]) : (v as number[]);
      const [k, st, dl] = [three(at.pool_size, 1), three(at.strides, 1), three(at.dilation, 1)];
      const p0 = (at.padding as number[]) ?? [0];
      const p = p0.length === 1 ? Array(6).fill(p0[0]) : p0.length === 3 ? [...p0, ...p0] : p0;
      const dims = [D!, H!, W!];
      const outs = dims.map((n, a) => {
        const span = (k[a]! - 1) * dl[a]! + 1;
        const len = n + p[a]! + p[a + 3]! - span;
        return (at.ceil_mode ? Math.ceil(len / st[a]!) : Math.floor(len / st[a]!)) + 1;
      });
      const [OD, OH, OW] = outs as [number, number, number];
      const y = mk([N!, C!, OD, OH, OW], x.dtype, (i) => {
        const o = [Math.floor(i / (OW * OH)) % OD, Math.floor(i / OW) % OH, i % OW];
        const nc = Math.floor(i / (OW * OH * OD));
        let best = -Infinity;
        let sum = 0;
        let cnt = 0;
        let padded = 0;
        for (let a = 0; a < k[0]!; a++)
          for (let b = 0; b < k[1]!; b++)
            for (let e = 0; e < k[2]!; e++) {
              const idx = [a, b, e].map((q, ax) => o[ax]! * st[ax]! - p[ax]! + q * dl[ax]!);
              // Taps inside the padded input count for count_include_pad; those past the end pad never do.
              if (idx.every((v, ax) => v < dims[ax]! + p[ax + 3]!)) padded++;
              if (idx.some((v, ax) => v < 0 || v >= dims[ax]!)) continue;
              const v = x.data[((nc * D! + idx[0]!) * H! + idx[1]!) * W! + idx[2]!]!;
              best = Math.max(best, v);
              sum += v;
              cnt++;
            }
        return roundTo(x.dtype, op === 'nn.max_pool3d' ? best : sum / (at.count_include_pad ? padded : cnt));
      });
      return layout === 'NDHWC' ? transpose(y, [0, 2, 3, 4, 1]) : y;
    }
    case 'scatter_elements': {
      const [x, idx, upd] = [t(0), t(1), t(2)];
      const r = x.shape.length;
      const axis = (((at.axis as number) ?? 0) + r) % r;
      const red = (at.reduction as string) ?? 'update';
      const data = Float64Array.from(x.data);
      const strides = x.shape.map((_, a) => x.shape.slice(a + 1).reduce((p, q) => p * q, 1));
      for (let i = 0; i < upd.data.length; i++) {
        let rest = i;
        let off = 0;
        for (let a = r - 1; a >= 0; a--) {
          const n = idx.shape[a]!;
          let c = rest % n;
          rest = Math.floor(rest / n);
          if (a === axis) c = idx.data[i]! < 0 ? idx.data[i]! + x.shape[a]! : idx.data[i]!;
          off += c * strides[a]!;
        }
        const u = upd.data[i]!;
        const cur = data[off]!;
        data[off] =
          red === 'add'
            ? cur + u
            : red === 'mul'
              ? cur * u
              : red === 'min'
                ? Math.min(cur, u)
                : red === 'max'
                  ? Math.max(cur, u)
                  : u;
      }
      return { shape: x.shape, dtype: x.dtype, data: data.map((v) => roundTo(x.dtype, v)) };
    }
    case 'nn.nll_loss': {
      const [x, tg, w] = [t(0), t(1), t(2)];
      const [N, C] = x.shape as number[];
      const ignore = (at.ignore_index as number) ?? -100;
      const losses: number[] = [];
      let wsum = 0;
      for (let n = 0; n < N!; n++) {
        const c = tg.data[n]!;
        if (c === ignore) {
          losses.push(0);
          continue;
        }
        losses.push(-x.data[n * C! + c]! * w.data[c]!);
        wsum += w.data[c]!;
      }
      const red = (at.reduction as string) ?? 'mean';
      if (red === 'none') return mk([N!], x.dtype, (i) => roundTo(x.dtype, losses[i]!));
      const total = losses.reduce((a, b) => a + b, 0);
      return mk([], x.dtype, () => roundTo(x.dtype, red === 'sum' ? total : total / wsum));
    }
    case 'slice_like': {
      const [x, like] = [t(0), t(1)];
      const given = at.axes as number[] | undefined;
      const axes = given?.length
        ? given.map((a) => (a < 0 ? a + x.shape.length : a))
        : [...Array(Math.min(x.shape.length, like.shape.length)).keys()];
      const shape = x.shape.map((n, a) => (axes.includes(a) ? like.shape[a]! : n));
      return mk(shape, x.dtype, (i) => {
        let rest = i;
        let off = 0;
        let stride = 1;
        for (let a = shape.length - 1; a >= 0; a--) {
          const c = rest % shape[a]!;
          rest = Math.floor(rest / shape[a]!);
          off += c * stride;
          stride *= x.shape[a]!;
        }
        return x.data[off]!;
      });
    }
    case 'nn.adaptive_avg_pool1d':
    case 'nn.adaptive_max_pool1d': {
      const x = t(0);
      const nwc = at.layout === 'NWC';
      const [N, C, W] = (nwc ? [x.shape[0], x.shape[2], x.shape[1]] : x.shape) as number[];
      const OW = ((at.output_size as number[] | undefined) ?? [W!])[0] ?? W!;
      const at0 = (n: number, ch: number, w: number) => x.data[nwc ? (n * W! + w) * C! + ch : (n * C! + ch) * W! + w]!;
      const shape = nwc ? [N!, OW, C!] : [N!, C!, OW];
      return mk(shape, x.dtype, (i) => {
        const [n, ch, ow] = nwc
          ? [Math.floor(i / (OW * C!)), i % C!, Math.floor(i / C!) % OW]
          : [Math.floor(i / (OW * C!)), Math.floor(i / OW) % C!, i % OW];
        const [w0, w1] = [Math.floor((ow * W!) / OW), Math.ceil(((ow + 1) * W!) / OW)];
        let [m, sum] = [-Infinity, 0];
        for (let w = w0; w < w1; w++) {
          m = Math.max(m, at0(n, ch, w));
          sum += at0(n, ch, w);
        }
        return roundTo(x.dtype, op === 'nn.adaptive_max_pool1d' ? m : sum / (w1 - w0));
      });
    }
    case 'meshgrid': {
      const xs = (vs[0] as RValue[]).map((v) => asTensor(v, 'meshgrid item'));
      const lens = xs.map((x) => x.data.length);
      const xy = at.indexing === 'xy' && xs.length > 1;
      const shape = xy ? [lens[1]!, lens[0]!, ...lens.slice(2)] : lens;
      const outs = xs.map((x, k) =>
        mk(shape, x.dtype, (i) => {
          // The grid coordinate on output axis `axis`, the one input k varies along.
          const axis = xy && k < 2 ? 1 - k : k;
          const inner = shape.slice(axis + 1).reduce((p, q) => p * q, 1);
          return x.data[Math.floor(i / inner) % shape[axis]!]!;
        }),
      );
      return outs;
    }
    case 'unravel_index': {
      const [idx, dims] = [t(0), t(1)];
      const d = Array.from(dims.data);
      const n = idx.data.length;
      return mk([d.length, ...idx.shape], idx.dtype, (i) => {
        const a = Math.floor(i / n);
        let v = idx.data[i % n]!;
        for (let b = d.length - 1; b > a; b--) v = Math.floor(v / d[b]!);
        return v % d[a]!;
      });
    }
    case 'nn.space_to_batch_nd': {
      // out[(bi · N + n), i1, ..., rest] = padded[n, i1 · b1 + o1, ..., rest] with bi the block offsets (o1..oM).
      const x = t(0);
      const block = at.block_shape as number[];
      const M = block.length;
      const pads = (at.paddings as number[][]) ?? block.map(() => [0, 0]);
      const [N, ...tail] = x.shape as [number, ...number[]];
      const padded = tail.slice(0, M).map((d, k) => d + pads[k]![0]! + pads[k]![1]!);
      const rest = tail.slice(M);
      const outSpatial = padded.map((d, k) => d / block[k]!);
      const prod = block.reduce((a, b) => a * b, 1);
      const shape = [N * prod, ...outSpatial, ...rest];
      const restSize = rest.reduce((a, b) => a * b, 1);
      return mk(shape, x.dtype, (i) => {
        const r = i % restSize;
        let q = Math.floor(i / restSize);
        const pos: number[] = [];
        for (let k = M - 1; k >= 0; k--) {
          pos[k] = q % outSpatial[k]!;
          q = Math.floor(q / outSpatial[k]!);
        }
        const n = q % N;
        let bi = Math.floor(q / N);
        const off: number[] = [];
        for (let k = M - 1; k >= 0; k--) {
          off[k] = bi % block[k]!;
          bi = Math.floor(bi / block[k]!);
        }
        const src = pos.map((p, k) => p * block[k]! + off[k]! - pads[k]![0]!);
        if (src.some((v, k) => v < 0 || v >= tail[k]!)) return (at.pad_value as number) ?? 0;
        let idx = n;
        src.forEach((v, k) => (idx = idx * tail[k]! + v));
        return x.data[idx * restSize + r]!;
      });
    }
    case 'nn.batch_to_space_nd': {
      // The inverse: out[n, j1, ..., rest] = x[(bi · N' + n), j1 / b1, ..., rest] over the uncropped grid, then cropped.
      const x = t(0);
      const block = at.block_shape as number[];
      const M = block.length;
      const crops = (at.crops as number[][]) ?? block.map(() => [0, 0]);
      const [B, ...tail] = x.shape as [number, ...number[]];
      const prod = block.reduce((a, b) => a * b, 1);
      const N = B / prod;
      const rest = tail.slice(M);
      const restSize = rest.reduce((a, b) => a * b, 1);
      const full = tail.slice(0, M).map((d, k) => d * block[k]!);
      const outSpatial = full.map((d, k) => d - crops[k]![0]! - crops[k]![1]!);
      return mk([N, ...outSpatial, ...rest], x.dtype, (i) => {
        const r = i % restSize;
        let q = Math.floor(i / restSize);
        const pos: number[] = [];
        for (let k = M - 1; k >= 0; k--) {
          pos[k] = (q % outSpatial[k]!) + crops[k]![0]!;
          q = Math.floor(q / outSpatial[k]!);
        }
        const n = q;
        let bi = 0;
        pos.forEach((p, k) => (bi = bi * block[k]! + (p % block[k]!)));
        let idx = bi * N + n;
        pos.forEach((p, k) => (idx = idx * tail[k]! + Math.floor(p / block[k]!)));
        return x.data[idx * restSize + r]!;
      });
    }
    case 'nn.adaptive_avg_pool3d':
    case 'nn.adaptive_max_pool3d': {
      const ndhwc = at.layout === 'NDHWC';
      const x = ndhwc ? transpose(t(0), [0, 4, 1, 2, 3]) : t(0);
      const [N, C, D, H, W] = x.shape as number[];
      const given = (at.output_size as number[]) ?? [];
      const [OD, OH, OW] = [D!, H!, W!].map((n, a) => (given.length === 1 ? given[0] : given[a]) ?? n) as [
        number,
        number,
        number,
      ];
      const win = (i: number, n: number, o: number) => [Math.floor((i * n) / o), Math.ceil(((i + 1) * n) / o)];
      const y = mk([N!, C!, OD, OH, OW], x.dtype, (i) => {
        const ow = i % OW;
        const oh = Math.floor(i / OW) % OH;
        const od = Math.floor(i / (OW * OH)) % OD;
        const nc = Math.floor(i / (OW * OH * OD));
        const [[d0, d1], [h0, h1], [w0, w1]] = [win(od, D!, OD), win(oh, H!, OH), win(ow, W!, OW)] as number[][];
        let [m, s, cnt] = [-Infinity, 0, 0];
        for (let d = d0!; d < d1!; d++)
          for (let h = h0!; h < h1!; h++)
            for (let w = w0!; w < w1!; w++) {
              const v = x.data[((nc * D! + d) * H! + h) * W! + w]!;
              m = Math.max(m, v);
              s += v;
              cnt++;
            }
        return roundTo(x.dtype, op === 'nn.adaptive_max_pool3d' ? m : s / cnt);
      });
      return ndhwc ? transpose(y, [0, 2, 3, 4, 1]) : y;
    }
    case 'nn.dilate': {
      const x = t(0);
      const st = at.strides as number[];
      const fill = (at.dilation_value as number) ?? 0;
      const shape = x.shape.map((n, a) => (n - 1) * st[a]! + 1);
      const strides = x.shape.map((_, a) => x.shape.slice(a + 1).reduce((p, q) => p * q, 1));
      return mk(shape, x.dtype, (i) => {
        let rest = i;
        let off = 0;
        for (let a = shape.length - 1; a >= 0; a--) {
          const c = rest % shape[a]!;
          rest = Math.floor(rest / shape[a]!);
          if (c % st[a]!) return fill;
          off += (c / st[a]!) * strides[a]!;
        }
        return x.data[off]!;
      });
    }
    case 'matrix_set_diag': {
      const [x, d] = [t(0), t(1)];
      const [M, N] = [x.shape.at(-2)!, x.shape.at(-1)!];
      const K = Math.min(M, N);
      return mk(x.shape, x.dtype, (i) => {
        const j = i % N;
        const r = Math.floor(i / N) % M;
        const batch = Math.floor(i / (M * N));
        return r === j ? d.data[batch * K + j]! : x.data[i]!;
      });
    }
    case 'invert_permutation': {
      const x = t(0);
      const out = new Float64Array(x.data.length);
      x.data.forEach((v, i) => (out[v] = i));
      return { shape: x.shape, dtype: x.dtype, data: out };
    }
    case 'reverse_sequence': {
      const [x, lens] = [t(0), t(1)];
      const r = x.shape.length;
      const sa = (((at.seq_axis as number) ?? 1) + r) % r;
      const ba = (((at.batch_axis as number) ?? 0) + r) % r;
      const strides = x.shape.map((_, a) => x.shape.slice(a + 1).reduce((p, q) => p * q, 1));
      return mk(x.shape, x.dtype, (i) => {
        const idx = x.shape.map((n, a) => Math.floor(i / strides[a]!) % n);
        const len = lens.data[idx[ba]!]!;
        if (idx[sa]! < len) idx[sa] = len - 1 - idx[sa]!;
        return x.data[idx.reduce((o, v, a) => o + v * strides[a]!, 0)]!;
      });
    }
    case 'reinterpret': {
      // The same bytes read as another type of the same width (little-endian), through a DataView.
      const x = t(0);
      const to = at.dtype as RDType;
      const width: Partial<Record<RDType, number>> = {
        float32: 4,
        int32: 4,
        float64: 8,
        int64: 8,
        int16: 2,
        int8: 1,
        uint8: 1,
      };
      const [wa, wb] = [width[x.dtype], width[to]];
      if (!wa || wa !== wb) throw new Error(`reinterpret from ${x.dtype} to ${to}`);
      const view = new DataView(new ArrayBuffer(wa));
      const put: Record<number, (v: number) => void> = {
        1: (v) => view.setInt8(0, v),
        2: (v) => view.setInt16(0, v, true),
        4: (v) => (x.dtype === 'float32' ? view.setFloat32(0, v, true) : view.setInt32(0, v, true)),
        8: (v) => (x.dtype === 'float64' ? view.setFloat64(0, v, true) : view.setBigInt64(0, BigInt(v), true)),
      };
      const get: Record<number, () => number> = {
        1: () => (to === 'uint8' ? view.getUint8(0) : view.getInt8(0)),
        2: () => view.getInt16(0, true),
        4: () => (to === 'float32' ? view.getFloat32(0, true) : view.getInt32(0, true)),
        8: () => (to === 'float64' ? view.getFloat64(0, true) : Number(view.getBigInt64(0, true))),
      };
      return mk(x.shape, to, (i) => {
        put[wa]!(x.data[i]!);
        return get[wa]!();
      });
    }
    case 'nn.adaptive_max_pool2d':
    case 'nn.adaptive_avg_pool2d': {
      const layout = (at.layout as string) ?? 'NCHW';
      const x = toLayout(t(0), layout, 'NCHW');
      const [N, C, H, W] = x.shape as number[];
      const os = (at.output_size as number[]) ?? [H!, W!];
      const [OH, OW] = [os[0]!, os[1] ?? os[0]!];
      const y = mk([N!, C!, OH, OW], x.dtype, (i) => {
        const ow = i % OW;
        const oh = Math.floor(i / OW) % OH;
        const nc = Math.floor(i / (OW * OH));
        const [h0, h1] = [Math.floor((oh * H!) / OH), Math.ceil(((oh + 1) * H!) / OH)];
        const [w0, w1] = [Math.floor((ow * W!) / OW), Math.ceil(((ow + 1) * W!) / OW)];
        let [s, m] = [0, -Infinity];
        for (let h = h0; h < h1; h++)
          for (let w = w0; w < w1; w++) {
            s += x.data[(nc * H! + h) * W! + w]!;
            m = Math.max(m, x.data[(nc * H! + h) * W! + w]!);
          }
        return roundTo(x.dtype, op === 'nn.adaptive_max_pool2d' ? m : s / ((h1 - h0) * (w1 - w0)));
      });
      return toLayout(y, 'NCHW', layout);
    }
    case 'nn.depth_to_space':
    case 'nn.space_to_depth': {
      const x = t(0);
      const [N, C, H, W] = x.shape as number[];
      const bs = at.block_size as number;
      const d2s = op === 'nn.depth_to_space';
      const shape = d2s ? [N!, C! / (bs * bs), H! * bs, W! * bs] : [N!, C! * bs * bs, H! / bs, W! / bs];
      const [, OC, OH, OW] = shape as [number, number, number, number];
      return mk(shape, x.dtype, (i) => {
        const w = i % OW;
        const h = Math.floor(i / OW) % OH;
        const ch = Math.floor(i / (OW * OH)) % OC;
        const n = Math.floor(i / (OW * OH * OC));
        if (d2s) {
          // DCR: input channel (bh * bs + bw) * OC + ch; CRD: ch * bs² + bh * bs + bw.
          const [bh, bw] = [h % bs, w % bs];
          const ic = at.mode === 'CRD' ? ch * bs * bs + bh * bs + bw : (bh * bs + bw) * OC + ch;
          return x.data[((n * C! + ic) * H! + Math.floor(h / bs)) * W! + Math.floor(w / bs)]!;
        }
        const blk = Math.floor(ch / C!);
        const ic = ch % C!;
        const [bh, bw] = [Math.floor(blk / bs), blk % bs];
        return x.data[((n * C! + ic) * H! + h * bs + bh) * W! + w * bs + bw]!;
      });
    }
    case 'topk': {
      const x = t(0);
      const a = axisOf((at.axis as number) ?? -1, x.shape.length);
      const d = x.shape[a]!;
      const k = (at.k as number) || d;
      const inner = size(x.shape.slice(a + 1));
      const shape = x.shape.map((n, i) => (i === a ? k : n));
      const order = (o: number, r: number) =>
        [...Array(d).keys()].sort((p, q) => {
          const [vp, vq] = [x.data[(o * d + p) * inner + r]!, x.data[(o * d + q) * inner + r]!];
          return (at.is_ascend ? vp - vq : vq - vp) || p - q;
        });
      const pick = (i: number) => {
        const r = i % inner;
        const j = Math.floor(i / inner) % k;
        const o = Math.floor(i / (inner * k));
        return { o, r, src: order(o, r)[j]! };
      };
      const values = mk(shape, x.dtype, (i) => {
        const { o, r, src } = pick(i);
        return x.data[(o * d + src) * inner + r]!;
      });
      const indices = mk(shape, (at.dtype as RDType) ?? 'int32', (i) => pick(i).src);
      const ret = (at.ret_type as string) ?? 'both';
      return ret === 'both' ? [values, indices] : ret === 'values' ? values : indices;
    }
    case 'one_hot': {
      const [ix, on, off] = [t(0), t(1), t(2)];
      const depth = at.depth as number;
      const rank = ix.shape.length + 1;
      const a = axisOf((at.axis as number) ?? -1, rank);
      const shape = [...ix.shape.slice(0, a), depth, ...ix.shape.slice(a)];
      const inner = size(ix.shape.slice(a));
      const dt = (at.dtype as RDType) ?? 'float32';
      return mk(shape, dt, (i) => {
        const k = Math.floor(i / inner) % depth;
        const o = Math.floor(i / (inner * depth));
        return ix.data[o * inner + (i % inner)] === k ? on.data[0]! : off.data[0]!;
      });
    }
    // Relay's dynamic-shape ops with constant shape arguments: the static op with those values as attrs.
    case 'dyn.reshape':
      return callOp('reshape', [vs[0]!], { ...at, newshape: Array.from(t(1).data) });
    case 'dyn.broadcast_to':
      return callOp('broadcast_to', [vs[0]!], { ...at, shape: Array.from(t(1).data) });
    case 'dyn.zeros':
    case 'dyn.ones':
      return callOp(op.slice(4), [], { ...at, shape: Array.from(t(0).data) });
    case 'dyn.topk':
      return callOp('topk', [vs[0]!], { ...at, k: t(1).data[0] });
    case 'dyn.one_hot':
      return callOp('one_hot', vs.slice(0, 3), { ...at, depth: t(3).data[0] });
    case 'nn.mirror_pad': {
      const x = t(0);
      const pw = at.pad_width as number[][];
      const sym = ((at.mode as string) ?? 'SYMMETRIC') === 'SYMMETRIC';
      const shape = x.shape.map((d, i) => d + pw[i]![0]! + pw[i]![1]!);
      const xs = strides(x.shape);
      const os = strides(shape);
      // Walk outward from the edge: REFLECT steps over the edge element, SYMMETRIC repeats it.
      const src = (c: number, n: number): number => {
        while (c < 0 || c >= n) c = c < 0 ? (sym ? -1 - c : -c) : sym ? 2 * n - 1 - c : 2 * n - 2 - c;
        return c;
      };
      return mk(shape, x.dtype, (i) => {
        let j = 0;
        for (let d = 0; d < shape.length; d++)
          j += src((Math.floor(i / os[d]!) % shape[d]!) - pw[d]![0]!, x.shape[d]!) * xs[d]!;
        return x.data[j]!;
      });
    }
    case 'gather_nd': {
      // out[y...][rest...] = data[idx[0][y...], ..., idx[M-1][y...], rest...]
      const [x, ix] = [t(0), t(1)];
      const M = ix.shape[0]!;
      const ys = ix.shape.slice(1);
      const rest = x.shape.slice(M);
      const inner = size(rest);
      const xs = strides(x.shape);
      const ny = size(ys);
      return mk([...ys, ...rest], x.dtype, (i) => {
        const y = Math.floor(i / inner);
        let j = 0;
        for (let m = 0; m < M; m++) j += ix.data[m * ny + y]! * xs[m]!;
        return x.data[j + (i % inner)]!;
      });
    }
    case 'annotation.compiler_begin':
    case 'annotation.compiler_end':
    case 'annotation.checkpoint':
      return t(0);
    case 'fast_exp':
      return unary(t(0), Math.exp);
    case 'fast_tanh':
      return unary(t(0), Math.tanh);
    case 'nn.fast_softmax':
      return callOp('nn.softmax', vs, at);
    case 'nn.conv1d': {
      // A width-only convolution: NCW data and OIW weights as NCHW and OIHW of height 1.
      const [x, w] = [t(0), t(1)];
      const pad = (at.padding as number[]) ?? [0];
      const y = conv2d(
        reshape(x, [x.shape[0]!, x.shape[1]!, 1, x.shape[2]!]),
        reshape(w, [w.shape[0]!, w.shape[1]!, 1, w.shape[2]!]),
        {
          strides: [1, ((at.strides as number[]) ?? [1])[0]!],
          dilation: [1, ((at.dilation as number[]) ?? [1])[0]!],
          padding: [0, pad[0]!, 0, pad[1] ?? pad[0]!],
          groups: at.groups ?? 1,
        },
      );
      return reshape(y, [y.shape[0]!, y.shape[1]!, y.shape[3]!]);
    }
    case 'nn.max_pool1d':
    case 'nn.avg_pool1d': {
      const x = t(0);
      const pad = (at.padding as number[]) ?? [0];
      const y = pool(
        reshape(x, [x.shape[0]!, x.shape[1]!, 1, x.shape[2]!]),
        {
          pool_size: [1, (at.pool_size as number[])[0]!],
          strides: [1, ((at.strides as number[]) ?? [1])[0]!],
          padding: [0, pad[0]!, 0, pad[1] ?? pad[0]!],
          count_include_pad: at.count_include_pad,
        },
        op === 'nn.max_pool1d' ? 'max' : 'avg',
      );
      return reshape(y, [y.shape[0]!, y.shape[1]!, y.shape[3]!]);
    }
    case 'isinf':
      return mk(t(0).shape, 'bool', (i) => (Math.abs(t(0).data[i]!) === Infinity ? 1 : 0));
    case 'all':
    case 'any': {
      const r = reduce(
        t(0),
        at.axis,
        Boolean(at.keepdims),
        (v) => (op === 'all' ? (v.every((q) => q !== 0) ? 1 : 0) : v.some((q) => q !== 0) ? 1 : 0),
        Boolean(at.exclude),
      );
      return { ...r, dtype: 'bool' };
    }
    case 'collapse_sum_to': {
      const x = t(0);
      const like = at.shape as number[];
      const lead = x.shape.length - like.length;
      const axes = x.shape.map((_, i) => i).filter((i) => i < lead || (like[i - lead] === 1 && x.shape[i] !== 1));
      return reshape(
        reduce(x, axes, true, (v) => v.reduce((p, q) => p + q, 0)),
        like,
      );
    }
    case 'broadcast_to_like':
      return binary(
        t(0),
        mk(t(1).shape, t(0).dtype, () => 0),
        (x) => x,
      );
    case 'ndarray_size':
      return scalar(t(0).data.length, (at.dtype as RDType) ?? 'int32');
    case 'sort':
    case 'argsort': {
      const sorted = callOp('topk', vs, {
        k: 0,
        axis: at.axis ?? -1,
        is_ascend: at.is_ascend ?? true,
        ret_type: 'both',
        dtype: at.dtype ?? 'int32',
      }) as T64[];
      return op === 'sort' ? sorted[0]! : sorted[1]!;
    }
    case 'nn.lrn': {
      // b = a / (bias + alpha / size · Σ a² over size channels around c)^beta.
      const x = t(0);
      const [C, inner] = [x.shape[1]!, size(x.shape.slice(2))];
      const n = (at.size as number) ?? 5;
      const [alpha, beta, bias] = [(at.alpha as number) ?? 1e-4, (at.beta as number) ?? 0.75, (at.bias as number) ?? 2];
      return mk(x.shape, x.dtype, (i) => {
        const ch = Math.floor(i / inner) % C;
        let sq = 0;
        for (let k = ch - Math.floor((n - 1) / 2); k <= ch + Math.ceil((n - 1) / 2); k++)
          if (k >= 0 && k < C) sq += x.data[i + (k - ch) * inner]! ** 2;
        return roundTo(x.dtype, x.data[i]! / (bias + (alpha / n) * sq) ** beta);
      });
    }
    case 'trilu': {
      const x = t(0);
      const k = vs[1] ? t(1).data[0]! : 0;
      const [R, Cc] = [x.shape.at(-2)!, x.shape.at(-1)!];
      return mk(x.shape, x.dtype, (i) => {
        const [r, col] = [Math.floor(i / Cc) % R, i % Cc];
        const keep = at.upper === false ? col - r <= k : col - r >= k;
        return keep ? x.data[i]! : 0;
      });
    }
    case 'sequence_mask': {
      const [x, len] = [t(0), t(1)];
      const a = axisOf((at.axis as number) ?? 0, x.shape.length);
      const inner = size(x.shape.slice(2));
      return mk(x.shape, x.dtype, (i) => {
        const i0 = Math.floor(i / (x.shape[1]! * inner));
        const i1 = Math.floor(i / inner) % x.shape[1]!;
        const [step, batch] = a === 0 ? [i0, i1] : [i1, i0];
        return step < len.data[batch]! ? x.data[i]! : ((at.mask_value as number) ?? 0);
      });
    }
    case 'nn.cross_entropy':
    case 'nn.cross_entropy_with_logits': {
      const [p, y] = [t(0), t(1)];
      let s = 0;
      for (let i = 0; i < p.data.length; i++)
        s += (op === 'nn.cross_entropy' ? Math.log(p.data[i]!) : p.data[i]!) * y.data[i]!;
      return scalar(roundTo(p.dtype, -s / p.shape[0]!), p.dtype);
    }
    case 'image.affine_grid': {
      // out[n, 0 or 1, i, j] = theta[n, row] · (x_j, y_i, 1), x and y from -1 to 1 corner to corner.
      const th = t(0);
      const [H, W] = at.target_shape as number[];
      const N = th.shape[0]!;
      const lin = (k: number, n: number) => (n === 1 ? -1 : -1 + (2 * k) / (n - 1));
      return mk([N, 2, H!, W!], th.dtype, (i) => {
        const j = i % W!;
        const r = Math.floor(i / W!) % H!;
        const row = Math.floor(i / (W! * H!)) % 2;
        const n = Math.floor(i / (W! * H! * 2));
        const base = n * 6 + row * 3;
        return roundTo(th.dtype, th.data[base]! * lin(j, W!) + th.data[base + 1]! * lin(r, H!) + th.data[base + 2]!);
      });
    }
    case 'image.grid_sample': {
      // Bilinear taps of x [N, C, H, W] at grid [N, 2, OH, OW] (x, y in [-1, 1]); zeros or border outside.
      const [x, g] = [t(0), t(1)];
      const [N, C, H, W] = x.shape as number[];
      const [OH, OW] = [g.shape[2]!, g.shape[3]!];
      const corners = at.align_corners === undefined ? true : Boolean(at.align_corners);
      const border = at.padding_mode === 'border';
      const unnorm = (v: number, n: number) => (corners ? ((v + 1) / 2) * (n - 1) : ((v + 1) * n - 1) / 2);
      return mk([N!, C!, OH, OW], x.dtype, (i) => {
        const ow = i % OW;
        const oh = Math.floor(i / OW) % OH;
        const ch = Math.floor(i / (OW * OH)) % C!;
        const n = Math.floor(i / (OW * OH * C!));
        let gx = unnorm(g.data[((n * 2 + 0) * OH + oh) * OW + ow]!, W!);
        let gy = unnorm(g.data[((n * 2 + 1) * OH + oh) * OW + ow]!, H!);
        if (border) [gx, gy] = [Math.min(Math.max(gx, 0), W! - 1), Math.min(Math.max(gy, 0), H! - 1)];
        const [x0, y0] = [Math.floor(gx), Math.floor(gy)];
        let v = 0;
        for (const [yy, wy] of [
          [y0, y0 + 1 - gy],
          [y0 + 1, gy - y0],
        ] as const)
          for (const [xx, wx] of [
            [x0, x0 + 1 - gx],
            [x0 + 1, gx - x0],
          ] as const) {
            if (yy < 0 || xx < 0 || yy >= H! || xx >= W!) continue;
            v += wy * wx * x.data[((n * C! + ch) * H! + yy) * W! + xx]!;
          }
        return roundTo(x.dtype, v);
      });
    }
    case 'nn.upsampling3d': {
      const x = t(0);
      const layout = (at.layout as string) ?? 'NCDHW';
      const axes = layout === 'NDHWC' ? [1, 2, 3] : [2, 3, 4];
      const scales = [at.scale_d, at.scale_h, at.scale_w].map((v) => (v as number) ?? 1);
      return callOp('image.resize3d', [x], {
        size: axes.map((a, k) => Math.round(Math.fround(x.shape[a]! * scales[k]!))),
        layout,
        method: ((at.method as string) ?? 'nearest_neighbor').replace(/^tri/, ''),
        coordinate_transformation_mode: (at.coordinate_transformation_mode as string) ?? 'half_pixel',
      });
    }
    case 'image.resize3d': {
      // Height and width by image.resize2d per depth slice, then depth by image.resize2d over [D, OH · OW], whose
      // second axis keeps its size (every method and mode leaves an axis resized to its own size as it is).
      const ndhwc = at.layout === 'NDHWC';
      const x = ndhwc ? transpose(t(0), [0, 4, 1, 2, 3]) : t(0);
      const [N, C, D, H, W] = x.shape as number[];
      const [OD, OH, OW] = at.size as number[];
      const rest = { ...at, layout: 'NCHW' };
      const hw = callOp('image.resize2d', [reshape(x, [N!, C! * D!, H!, W!])], { ...rest, size: [OH, OW] }) as T64;
      const d = callOp('image.resize2d', [reshape(hw, [N!, C!, D!, OH! * OW!])], {
        ...rest,
        size: [OD, OH! * OW!],
      }) as T64;
      const y = reshape(d, [N!, C!, OD!, OH!, OW!]);
      return ndhwc ? transpose(y, [0, 2, 3, 4, 1]) : y;
    }
    case 'image.resize1d': {
      // A height of 1 added, resized as image.resize2d, and taken away.
      const x = t(0);
      const ncw = ((at.layout as string) ?? 'NCW') === 'NCW';
      const x4 = reshape(
        x,
        ncw ? [x.shape[0]!, x.shape[1]!, 1, x.shape[2]!] : [x.shape[0]!, 1, x.shape[1]!, x.shape[2]!],
      );
      const y = callOp('image.resize2d', [x4], {
        ...at,
        size: [1, (at.size as number[])[0]!],
        layout: ncw ? 'NCHW' : 'NHWC',
      }) as T64;
      return reshape(y, ncw ? [y.shape[0]!, y.shape[1]!, y.shape[3]!] : [y.shape[0]!, y.shape[2]!, y.shape[3]!]);
    }
    case 'image.resize2d':
    case 'nn.upsampling': {
      // topi.image.resize2d per output pixel; coordinates in float32 as TVM computes them, values in float64.
      const layout = (at.layout as string) ?? 'NCHW';
      const x = toLayout(t(0), layout, 'NCHW');
      const [N, C, H, W] = x.shape as number[];
      const F = Math.fround;
      const up = op === 'nn.upsampling';
      const [OH, OW] = up
        ? [Math.round(F(H! * ((at.scale_h as number) ?? 1))), Math.round(F(W! * ((at.scale_w as number) ?? 1)))]
        : (at.size as number[]);
      const method = up
        ? ((at.method as string) ?? 'nearest_neighbor').replace(/^bi/, '')
        : ((at.method as string) ?? 'linear');
      const mode = up
        ? at.align_corners
          ? 'align_corners'
          : 'asymmetric'
        : ((at.coordinate_transformation_mode as string) ?? 'half_pixel');
      const rounding = up ? '' : ((at.rounding_method as string) ?? '');
      const alpha = up ? -0.75 : ((at.cubic_alpha as number) ?? -0.75);
      const exclude = !up && Boolean(at.cubic_exclude);
      const src = (o: number, n: number, m: number): number => {
        const sc = F(n / m);
        if (mode === 'half_pixel') return F(F(F(o + 0.5) * sc) - 0.5);
        if (mode === 'align_corners') return F(F((n - 1) / (m - 1)) * o);
        if (mode === 'asymmetric') return F(sc * o);
        if (mode === 'pytorch_half_pixel') return m > 1 ? F(F(F(o + 0.5) * sc) - 0.5) : 0;
        if (mode === 'tf_half_pixel_for_nn') return F(F(o + 0.5) * sc);
        throw new Error(`reference: resize mode ${mode}`);
      };
      const near = (o: number, n: number, m: number): number => {
        // TVM divides integers for nearest asymmetric floor at a whole-number upscale.
        if (
          mode === 'asymmetric' &&
          (rounding === '' || rounding === 'floor') &&
          m % n === 0 &&
          m / n <= 1 / (1e-5 * n + 1e-5)
        )
          return Math.floor(o / (m / n));
        const v = src(o, n, m);
        const r = rounding || (mode === 'align_corners' ? 'round' : 'floor');
        // te.round lowers to llvm.round: ties away from zero.
        if (r === 'round') return Math.sign(v) * Math.floor(Math.abs(v) + 0.5);
        if (r === 'round_prefer_floor') return Math.ceil(v - 0.5);
        if (r === 'round_prefer_ceil') return Math.floor(v + 0.5);
        if (r === 'floor') return Math.floor(F(v + 1e-5));
        return Math.ceil(F(v - 1e-5));
      };
      const cubicW = (tt: number): number[] => [
        alpha * (tt ** 3 - 2 * tt ** 2 + tt),
        (alpha + 2) * tt ** 3 - (3 + alpha) * tt ** 2 + 1,
        -(alpha + 2) * tt ** 3 + (3 + 2 * alpha) * tt ** 2 - alpha * tt,
        -alpha * tt ** 3 + alpha * tt ** 2,
      ];
      const y = mk([N!, C!, OH!, OW!], x.dtype, (i) => {
        const ow = i % OW!;
        const oh = Math.floor(i / OW!) % OH!;
        const nc = Math.floor(i / (OW! * OH!));
        const px = (yy: number, xx: number) =>
          x.data[(nc * H! + Math.min(Math.max(yy, 0), H! - 1)) * W! + Math.min(Math.max(xx, 0), W! - 1)]!;
        if (method === 'nearest_neighbor') return px(near(oh, H!, OH!), near(ow, W!, OW!));
        const [iy, ix] = [src(oh, H!, OH!), src(ow, W!, OW!)];
        const [y0, x0] = [Math.floor(iy), Math.floor(ix)];
        const [fy, fx] = [F(iy - y0), F(ix - x0)];
        if (method === 'linear') {
          const top = px(y0, x0) * (1 - fx) + px(y0, x0 + 1) * fx;
          const bottom = px(y0 + 1, x0) * (1 - fx) + px(y0 + 1, x0 + 1) * fx;
          return roundTo(x.dtype, top * (1 - fy) + bottom * fy);
        }
        let [wy, wx] = [cubicW(fy), cubicW(fx)];
        if (exclude) {
          const cut = (w: number[], base: number, n: number) => {
            const kept = w.map((v, k) => (base - 1 + k < 0 || base + k > n ? 0 : v));
            const total = kept.reduce((p, q) => p + q, 0);
            return kept.map((v) => v / total);
          };
          [wy, wx] = [cut(wy, y0, H!), cut(wx, x0, W!)];
        }
        let s = 0;
        for (let j = 0; j < 4; j++) for (let k = 0; k < 4; k++) s += wy[j]! * wx[k]! * px(y0 - 1 + j, x0 - 1 + k);
        return roundTo(x.dtype, s);
      });
      return toLayout(y, 'NCHW', layout);
    }
    case 'nn.conv1d_transpose': {
      // nn.conv2d_transpose's reference over a height of 1 (IOW weight; OIW swapped to it first).
      const [x, w0] = [t(0), t(1)];
      const w = at.kernel_layout === 'OIW' ? transpose(w0, [1, 0, 2]) : w0;
      const pad = (at.padding as number[]) ?? [0];
      const y = callOp(
        'nn.conv2d_transpose',
        [
          reshape(x, [x.shape[0]!, x.shape[1]!, 1, x.shape[2]!]),
          reshape(w, [w.shape[0]!, w.shape[1]!, 1, w.shape[2]!]),
        ],
        {
          groups: at.groups,
          strides: [1, ((at.strides as number[]) ?? [1])[0]!],
          dilation: [1, ((at.dilation as number[]) ?? [1])[0]!],
          padding: [0, pad[0]!, 0, pad[1] ?? pad[0]!],
          output_padding: [0, ((at.output_padding as number[]) ?? [0])[0]!],
        },
      ) as T64;
      return reshape(y, [y.shape[0]!, y.shape[1]!, y.shape[3]!]);
    }
    case 'nn.conv2d_transpose': {
      // y[n, g·OCg + oc, oh, ow] += x[n, g·ICg + ic, ih, iw] · w[g·ICg + ic, oc, kh, kw] at
      // oh = ih·stride - pad_top + kh·dilation (IOHW weight, TVM's default).
      const [x, w] = [t(0), t(1)];
      const [N, IC, H, W] = x.shape as number[];
      const [, OCg, KH, KW] = w.shape as number[];
      const G = (at.groups as number) ?? 1;
      const [sh, sw] = (at.strides as number[]) ?? [1, 1];
      const [dh, dw] = (at.dilation as number[]) ?? [1, 1];
      let p = (at.padding as number[]) ?? [0, 0, 0, 0];
      if (p.length === 2) p = [p[0]!, p[1]!, p[0]!, p[1]!];
      const [oph, opw] = (at.output_padding as number[]) ?? [0, 0];
      const OH = (H! - 1) * sh! - p[0]! - p[2]! + dh! * (KH! - 1) + 1 + oph!;
      const OW = (W! - 1) * sw! - p[1]! - p[3]! + dw! * (KW! - 1) + 1 + opw!;
      const OC = OCg! * G;
      const ICg = IC! / G;
      const out = new Float64Array(N! * OC * OH * OW);
      for (let n = 0; n < N!; n++)
        for (let ic = 0; ic < IC!; ic++) {
          const g = Math.floor(ic / ICg);
          for (let ih = 0; ih < H!; ih++)
            for (let iw = 0; iw < W!; iw++) {
              const xv = x.data[((n * IC! + ic) * H! + ih) * W! + iw]!;
              for (let oc = 0; oc < OCg!; oc++)
                for (let kh = 0; kh < KH!; kh++)
                  for (let kw = 0; kw < KW!; kw++) {
                    const oh = ih * sh! - p[0]! + kh * dh!;
                    const ow = iw * sw! - p[1]! + kw * dw!;
                    if (oh < 0 || ow < 0 || oh >= OH || ow >= OW) continue;
                    out[((n * OC + g * OCg! + oc) * OH + oh) * OW + ow] +=
                      xv * w.data[((ic * OCg! + oc) * KH! + kh) * KW! + kw]!;
                  }
            }
        }
      for (let i = 0; i < out.length; i++) out[i] = roundTo(x.dtype, out[i]!);
      return { shape: [N!, OC, OH, OW], dtype: x.dtype, data: out };
    }
    case 'round':
      return unary(t(0), halfAway);
    case 'floor':
      return unary(t(0), Math.floor);
    case 'ceil':
      return unary(t(0), Math.ceil);
    case 'nn.fifo_buffer': {
      const [x, buf] = [t(0), t(1)];
      const axis = axisOf((at.axis as number) ?? 0, buf.shape.length);
      const inner = size(buf.shape.slice(axis + 1));
      const [nb, nx] = [buf.shape[axis]!, x.shape[axis]!];
      return mk(buf.shape, buf.dtype, (i) => {
        const outer = Math.floor(i / (nb * inner));
        const k = Math.floor(i / inner) % nb;
        const j = i % inner;
        // Position k of the window is element k + nx of buffer ++ data.
        const q = k + nx;
        return q < nb ? buf.data[(outer * nb + q) * inner + j]! : x.data[(outer * nx + q - nb) * inner + j]!;
      });
    }
    case 'searchsorted': {
      const [seq, vals] = [t(0), t(1)];
      const m = seq.shape[seq.shape.length - 1]!;
      const n = vals.shape[vals.shape.length - 1]!;
      const right = at.right === true;
      return mk(vals.shape, ((at.dtype as RDType) || 'int32') as RDType, (i) => {
        const base = seq.shape.length === 1 ? 0 : Math.floor(i / n) * m;
        const v = vals.data[i]!;
        // Binary search over the sorted row, as TVM's kernel does.
        let [lo, hi] = [0, m];
        while (lo < hi) {
          const mid = (lo + hi) >> 1;
          const e = seq.data[base + mid]!;
          if (right ? e <= v : e < v) lo = mid + 1;
          else hi = mid;
        }
        return lo;
      });
    }
    case 'adv_index': {
      const list = (vs.length === 1 && Array.isArray(vs[0]) ? vs[0] : vs) as T64[];
      const [data, ...idx] = list as [T64, ...T64[]];
      const rank = Math.max(...idx.map((x) => x.shape.length));
      const bs = Array.from({ length: rank }, (_, a) =>
        Math.max(...idx.map((x) => x.shape[a - (rank - x.shape.length)] ?? 1)),
      );
      const rest = data.shape.slice(idx.length);
      const inner = size(rest);
      const ds = strides(data.shape);
      const pick = idx.map((x) => bindex(bs, x.shape));
      return mk([...bs, ...rest], data.dtype, (i) => {
        const b = Math.floor(i / inner);
        let off = i % inner;
        idx.forEach((x, a) => (off += x.data[pick[a]!(b)]! * ds[a]!));
        return data.data[off]!;
      });
    }
    case 'scatter_nd': {
      const [x, idx, upd] = [t(0), t(1), t(2)];
      const m = idx.shape[0]!;
      const count = size(idx.shape.slice(1));
      const inner = size(x.shape.slice(m));
      const xs = strides(x.shape);
      const data = Float64Array.from(x.data);
      for (let y = 0; y < count; y++) {
        let off = 0;
        for (let a = 0; a < m; a++) off += idx.data[a * count + y]! * xs[a]!;
        for (let j = 0; j < inner; j++) {
          const u = upd.data[y * inner + j]!;
          data[off + j] = at.mode === 'add' ? data[off + j]! + u : u;
        }
      }
      return { shape: x.shape, dtype: x.dtype, data: data.map((v) => roundTo(x.dtype, v)) };
    }
    case 'sparse_to_dense': {
      const [idx, vals, dflt] = [t(0), t(1), t(2)];
      const shape = at.output_shape as number[];
      const out = new Float64Array(size(shape)).fill(dflt.data[0]!);
      const os = strides(shape);
      const n = idx.shape.length === 0 ? 1 : idx.shape[0]!;
      const k = idx.shape.length === 2 ? idx.shape[1]! : 1;
      for (let e = 0; e < n; e++) {
        let off = 0;
        for (let a = 0; a < k; a++) off += idx.data[e * k + a]! * os[a]!;
        out[off] = vals.shape.length === 0 ? vals.data[0]! : vals.data[e]!;
      }
      return { shape, dtype: vals.dtype, data: out };
    }
    case 'strided_set': {
      const [x, v, b, e, st] = [t(0), t(1), t(2), t(3), t(4)];
      const r = x.shape.length;
      const xs = strides(x.shape);
      const lo = x.shape.map((n, a) => Math.min(Math.max(b.data[a]! < 0 ? b.data[a]! + n : b.data[a]!, 0), n));
      const hi = x.shape.map((n, a) => Math.min(Math.max(e.data[a]! < 0 ? e.data[a]! + n : e.data[a]!, 0), n));
      const counts = x.shape.map((_, a) => Math.max(0, Math.ceil((hi[a]! - lo[a]!) / st.data[a]!)));
      const vs2 = strides(counts);
      return mk(x.shape, x.dtype, (i) => {
        let voff = 0;
        for (let a = 0; a < r; a++) {
          const c = Math.floor(i / xs[a]!) % x.shape[a]!;
          const q = (c - lo[a]!) / st.data[a]!;
          if (c < lo[a]! || c >= hi[a]! || !Number.isInteger(q)) return x.data[i]!;
          voff += q * vs2[a]!;
        }
        return roundTo(x.dtype, v.data[voff]!);
      });
    }
    case 'sliding_window': {
      const x = t(0);
      const axis = axisOf((at.axis as number) ?? 0, x.shape.length);
      const win = at.window_shape as number[];
      const st = at.strides as number[];
      const tail = x.shape.slice(axis);
      const pos = tail.map((n, i) => Math.floor((n - win[i]!) / st[i]!) + 1);
      const lead = x.shape.slice(0, axis);
      const outShape = [...lead, ...pos, ...win];
      const os = strides(outShape);
      const xs = strides(x.shape);
      return mk(outShape, x.dtype, (i) => {
        const c = outShape.map((n, a) => Math.floor(i / os[a]!) % n);
        let off = 0;
        lead.forEach((_, a) => (off += c[a]! * xs[a]!));
        tail.forEach((_, k) => {
          const p = c[lead.length + k]!;
          const q = c[lead.length + tail.length + k]!;
          off += (p * st[k]! + q) * xs[axis + k]!;
        });
        return x.data[off]!;
      });
    }
    case 'nn.contrib_dense_pack': {
      const [x, w] = [t(0), t(1)];
      const [B, K] = x.shape as [number, number];
      const packed = w.shape.length === 3;
      const [N, bn] = packed ? [w.shape[0]! * w.shape[2]!, w.shape[2]!] : [w.shape[0]!, 1];
      const od = ((at.out_dtype as RDType) || x.dtype) as RDType;
      return mk([B, N], od, (i) => {
        const [b, n] = [Math.floor(i / N), i % N];
        let acc = 0;
        for (let k = 0; k < K; k++)
          acc +=
            x.data[b * K + k]! * (packed ? w.data[(Math.floor(n / bn) * K + k) * bn + (n % bn)]! : w.data[n * K + k]!);
        return roundTo(od, acc);
      });
    }
    case 'nn.conv2d_backward_weight': {
      const [dy, x] = [t(0), t(1)];
      const [N, C, H, W] = x.shape as number[];
      const [, O, OH, OW] = dy.shape as number[];
      const g = (at.groups as number) ?? 1;
      const [KH, KW] = at.kernel_size as number[];
      const [sh, sw] = (at.strides as number[]) ?? [1, 1];
      const [dh, dw] = (at.dilation as number[]) ?? [1, 1];
      let p = (at.padding as number[]) ?? [0, 0];
      if (p.length === 1) p = [p[0]!, p[0]!, p[0]!, p[0]!];
      if (p.length === 2) p = [p[0]!, p[1]!, p[0]!, p[1]!];
      const CG = C! / g;
      const og = O! / g;
      return mk([O!, CG, KH!, KW!], x.dtype, (i) => {
        const kw = i % KW!;
        const kh = Math.floor(i / KW!) % KH!;
        const c = Math.floor(i / (KW! * KH!)) % CG;
        const o = Math.floor(i / (KW! * KH! * CG));
        const ci = Math.floor(o / og) * CG + c;
        let acc = 0;
        for (let n = 0; n < N!; n++)
          for (let oh = 0; oh < OH!; oh++) {
            const ih = oh * sh! - p[0]! + kh * dh!;
            if (ih < 0 || ih >= H!) continue;
            for (let ow = 0; ow < OW!; ow++) {
              const iw = ow * sw! - p[1]! + kw * dw!;
              if (iw < 0 || iw >= W!) continue;
              acc += dy.data[((n * O! + o) * OH! + oh) * OW! + ow]! * x.data[((n * C! + ci) * H! + ih) * W! + iw]!;
            }
          }
        return roundTo(x.dtype, acc);
      });
    }
    case 'nn.avg_pool2d_grad':
    case 'nn.max_pool2d_grad': {
      const [dy, x] = [t(0), t(1)];
      const [N, C, H, W] = x.shape as number[];
      const [, , OH, OW] = dy.shape as number[];
      const [KH, KW] = at.pool_size as number[];
      const [sh, sw] = (at.strides as number[]) ?? [1, 1];
      let p = (at.padding as number[]) ?? [0, 0];
      if (p.length === 2) p = [p[0]!, p[1]!, p[0]!, p[1]!];
      const out = new Float64Array(size(x.shape));
      for (let nc = 0; nc < N! * C!; nc++)
        for (let oh = 0; oh < OH!; oh++)
          for (let ow = 0; ow < OW!; ow++) {
            const g = dy.data[(nc * OH! + oh) * OW! + ow]!;
            const cells: number[] = [];
            for (let kh = 0; kh < KH!; kh++)
              for (let kw = 0; kw < KW!; kw++) {
                const [ih, iw] = [oh * sh! - p[0]! + kh, ow * sw! - p[1]! + kw];
                if (ih >= 0 && iw >= 0 && ih < H! && iw < W!) cells.push((nc * H! + ih) * W! + iw);
              }
            if (op === 'nn.max_pool2d_grad') {
              let best = cells[0]!;
              for (const q of cells) if (x.data[q]! > x.data[best]!) best = q;
              out[best] += g;
            } else {
              const count = at.count_include_pad === true ? KH! * KW! : cells.length;
              for (const q of cells) out[q] += g / count;
            }
          }
      return { shape: x.shape, dtype: x.dtype, data: out.map((v) => roundTo(x.dtype, v)) };
    }
    case 'nn.conv3d': {
      const x = toLayout(t(0), (at.data_layout as string) || 'NCDHW', 'NCDHW');
      const w = toLayout(t(1), (at.kernel_layout as string) || 'OIDHW', 'OIDHW');
      const [N, C, D, H, W] = x.shape as number[];
      const [O, CG, KD, KH, KW] = w.shape as number[];
      const g = (at.groups as number) ?? 1;
      const three = (v: unknown, d: number) => {
        const l = (v as number[] | undefined) ?? [d, d, d];
        return l.length === 1 ? [l[0]!, l[0]!, l[0]!] : l;
      };
      const s = three(at.strides, 1);
      const dl = three(at.dilation, 1);
      let p = (at.padding as number[]) ?? [0, 0, 0];
      if (p.length === 1) p = Array<number>(6).fill(p[0]!);
      if (p.length === 3) p = [...p, ...p];
      const [k0, k1, k2] = [KD!, KH!, KW!];
      const od = Math.floor((D! + p[0]! + p[3]! - dl[0]! * (k0 - 1) - 1) / s[0]!) + 1;
      const oh = Math.floor((H! + p[1]! + p[4]! - dl[1]! * (k1 - 1) - 1) / s[1]!) + 1;
      const ow = Math.floor((W! + p[2]! + p[5]! - dl[2]! * (k2 - 1) - 1) / s[2]!) + 1;
      const og = O! / g;
      const out = mk([N!, O!, od, oh, ow], x.dtype, (i) => {
        const xo = i % ow;
        const yo = Math.floor(i / ow) % oh;
        const zo = Math.floor(i / (ow * oh)) % od;
        const o = Math.floor(i / (ow * oh * od)) % O!;
        const n = Math.floor(i / (ow * oh * od * O!));
        let acc = 0;
        for (let c = 0; c < CG!; c++)
          for (let a = 0; a < k0; a++)
            for (let b = 0; b < k1; b++)
              for (let e = 0; e < k2; e++) {
                const [z, y, xx] = [
                  zo * s[0]! - p[0]! + a * dl[0]!,
                  yo * s[1]! - p[1]! + b * dl[1]!,
                  xo * s[2]! - p[2]! + e * dl[2]!,
                ];
                if (z < 0 || y < 0 || xx < 0 || z >= D! || y >= H! || xx >= W!) continue;
                const ci = Math.floor(o / og) * CG! + c;
                acc +=
                  x.data[(((n * C! + ci) * D! + z) * H! + y) * W! + xx]! *
                  w.data[(((o * CG! + c) * k0 + a) * k1 + b) * k2 + e]!;
              }
        return roundTo(x.dtype, acc);
      });
      return toLayout(out, 'NCDHW', (at.data_layout as string) || 'NCDHW');
    }
    case 'vision.multibox_prior': {
      const [H, W] = t(0).shape.slice(2) as [number, number];
      const sizes = (at.sizes as number[]) ?? [1];
      const ratios = (at.ratios as number[]) ?? [1];
      const [sy, sx] = (at.steps as number[]) ?? [-1, -1];
      const [oy, ox] = (at.offsets as number[]) ?? [0.5, 0.5];
      const per = sizes.length + ratios.length - 1;
      return mk([1, H * W * per, 4], 'float32', (i) => {
        const q = i % 4;
        const box = Math.floor(i / 4);
        const k = box % per;
        const cell = Math.floor(box / per);
        const [r, cc] = [Math.floor(cell / W), cell % W];
        const cy = (r + oy!) * (sy! > 0 ? sy! : 1 / H);
        const cx = (cc + ox!) * (sx! > 0 ? sx! : 1 / W);
        const ratio = k < sizes.length ? 1 : ratios[k - sizes.length + 1]!;
        const sz = k < sizes.length ? sizes[k]! : sizes[0]!;
        const hw = (sz * H * Math.sqrt(ratio)) / W / 2;
        const hh = sz / Math.sqrt(ratio) / 2;
        const v = [cx - hw, cy - hh, cx + hw, cy + hh][q]!;
        return Math.fround(at.clip === true ? Math.min(Math.max(v, 0), 1) : v);
      });
    }
    case 'relay.op.annotation.simulated_quantize': {
      const x = t(0);
      if (at.kind === 0) return x;
      const [scale, lo, hi] = [t(1).data[0]!, t(2).data[0]!, t(3).data[0]!];
      return unary(x, (v) => halfAway(Math.max(Math.min(v / scale, hi), lo)) * scale);
    }
    case 'nn.contrib_conv2d_NCHWc':
    case 'nn.contrib_depthwise_conv2d_NCHWc': {
      // Unpack NCHW{c}c and OIHW{i}i{o}o element by element, convolve as NCHW / OIHW, pack NCHW{o}c.
      const [x5, w6] = [t(0), t(1)];
      const [N, CB, H, W, CI] = x5.shape as number[];
      const x = mk([N!, CB! * CI!, H!, W!], x5.dtype, (i) => {
        const [n, ch, h, w] = [
          Math.floor(i / (CB! * CI! * H! * W!)),
          Math.floor(i / (H! * W!)) % (CB! * CI!),
          Math.floor(i / W!) % H!,
          i % W!,
        ];
        return x5.data[(((n * CB! + Math.floor(ch / CI!)) * H! + h) * W! + w) * CI! + (ch % CI!)]!;
      });
      const [OB, IB, KH, KW, II, OO] = w6.shape as number[];
      const w = mk([OB! * OO!, IB! * II!, KH!, KW!], w6.dtype, (i) => {
        const kw = i % KW!;
        const kh = Math.floor(i / KW!) % KH!;
        const ic = Math.floor(i / (KW! * KH!)) % (IB! * II!);
        const oc = Math.floor(i / (KW! * KH! * IB! * II!));
        return w6.data[
          ((((Math.floor(oc / OO!) * IB! + Math.floor(ic / II!)) * KH! + kh) * KW! + kw) * II! + (ic % II!)) * OO! +
            (oc % OO!)
        ]!;
      });
      const y = conv2d(x, w, { ...at, data_layout: 'NCHW', kernel_layout: 'OIHW' });
      const ob = Number(/(\d+)c$/.exec((at.out_layout as string) || (at.data_layout as string))![1]);
      const [, O, OH, OW] = y.shape as number[];
      return mk([N!, O! / ob, OH!, OW!, ob], y.dtype, (i) => {
        const c = i % ob;
        const ow = Math.floor(i / ob) % OW!;
        const oh = Math.floor(i / (ob * OW!)) % OH!;
        const cb = Math.floor(i / (ob * OW! * OH!)) % (O! / ob);
        const n = Math.floor(i / (ob * OW! * OH! * (O! / ob)));
        return y.data[((n * O! + cb * ob + c) * OH! + oh) * OW! + ow]!;
      });
    }
    case 'vision.yolo_reorg': {
      const x = t(0);
      const s = (at.stride as number) ?? 1;
      const [B, C, H, W] = x.shape as number[];
      const oc = Math.floor(C! / (s * s));
      return mk([B!, C! * s * s, H! / s, W! / s], x.dtype, (o) => {
        // The output is the reshape of a tensor of the input's shape, element (b, k, j, i) of which is computed.
        const i = o % W!;
        const j = Math.floor(o / W!) % H!;
        const k = Math.floor(o / (W! * H!)) % C!;
        const b = Math.floor(o / (W! * H! * C!));
        const q = Math.floor(k / oc);
        return x.data[
          ((b * s * s * C! + (k % oc) * s * s) * H! + (j * s + Math.floor(q / s)) * s) * W! + i * s + (q % s)
        ]!;
      });
    }
    case 'vision.roi_align': {
      const [x, rois] = [t(0), t(1)];
      const [, C, H, W] = x.shape as number[];
      const [PH, PW] = at.pooled_size as number[];
      const ss = (at.spatial_scale as number) ?? 1;
      const sr = (at.sample_ratio as number) ?? -1;
      const R = rois.shape[0]!;
      const bilinear = (b: number, c: number, y: number, xx: number): number => {
        if (y < -1 || xx < -1 || y > H! || xx > W!) return 0;
        y = Math.min(Math.max(y, 0), H! - 1);
        xx = Math.min(Math.max(xx, 0), W! - 1);
        const [y0, x0] = [Math.floor(y), Math.floor(xx)];
        const [y1, x1] = [Math.min(y0 + 1, H! - 1), Math.min(x0 + 1, W! - 1)];
        const [ly, lx] = [y - y0, xx - x0];
        const v = (yy: number, xv: number) => x.data[((b * C! + c) * H! + yy) * W! + xv]!;
        return (
          (1 - ly) * (1 - lx) * v(y0, x0) + (1 - ly) * lx * v(y0, x1) + ly * (1 - lx) * v(y1, x0) + ly * lx * v(y1, x1)
        );
      };
      return mk([R, C!, PH!, PW!], x.dtype, (i) => {
        const pw = i % PW!;
        const ph = Math.floor(i / PW!) % PH!;
        const c = Math.floor(i / (PW! * PH!)) % C!;
        const r = Math.floor(i / (PW! * PH! * C!));
        const roi = Array.from({ length: 5 }, (_, k) => rois.data[r * 5 + k]!);
        const [x1, y1, x2, y2] = [roi[1]! * ss, roi[2]! * ss, roi[3]! * ss, roi[4]! * ss];
        const [rh, rw] = [Math.max(y2 - y1, 1), Math.max(x2 - x1, 1)];
        const [bh, bw] = [rh / PH!, rw / PW!];
        const [gh, gw] = sr > 0 ? [sr, sr] : [Math.ceil(rh / PH!), Math.ceil(rw / PW!)];
        let acc = 0;
        for (let iy = 0; iy < gh; iy++)
          for (let ix = 0; ix < gw; ix++)
            acc += bilinear(roi[0]!, c, y1 + ph * bh + ((iy + 0.5) * bh) / gh, x1 + pw * bw + ((ix + 0.5) * bw) / gw);
        return roundTo(x.dtype, acc / (gh * gw));
      });
    }
    case 'fixed_point_multiply': {
      const [m, sh] = [at.multiplier as number, at.shift as number];
      return unary(t(0), (v) => qnnShift(v, m, Math.max(sh, 0), Math.max(-sh, 0), false));
    }
    case 'fixed_point_multiply_per_axis': {
      const x = t(0);
      const [m, l, r] = [qnnValues(vs[1]!), qnnValues(vs[2]!), qnnValues(vs[3]!)];
      const axis = axisOf((at.axes as number[])[0]!, x.shape.length);
      return mk(x.shape, x.dtype, (i) => {
        const ch = channelOf(x.shape, axis, i, m.length);
        return qnnShift(
          x.data[i]!,
          m[ch]!,
          at.is_lshift_required === false ? 0 : l[ch]!,
          at.is_rshift_required === false ? 0 : r[ch]!,
          false,
        );
      });
    }
    case 'qnn.quantize': {
      const x = t(0);
      const [sc, zp] = [qnnValues(vs[1]!), qnnValues(vs[2]!)];
      const od = ((at.out_dtype as string) || 'int8') as RDType;
      const axis = x.shape.length ? axisOf((at.axis as number) ?? -1, x.shape.length) : 0;
      const [lo, hi] = QRANGE[od]!;
      return mk(x.shape, od, (i) => {
        const ch = channelOf(x.shape, axis, i, Math.max(sc.length, zp.length));
        const q = halfAway(Math.fround(x.data[i]! / Math.fround(sc[Math.min(ch, sc.length - 1)]!)));
        return Math.min(Math.max(q + zp[Math.min(ch, zp.length - 1)]!, lo), hi);
      });
    }
    case 'qnn.dequantize': {
      const x = t(0);
      const [sc, zp] = [qnnValues(vs[1]!), qnnValues(vs[2]!)];
      const axis = x.shape.length ? axisOf((at.axis as number) ?? -1, x.shape.length) : 0;
      return mk(x.shape, 'float32', (i) => {
        const ch = channelOf(x.shape, axis, i, Math.max(sc.length, zp.length));
        return Math.fround(
          (x.data[i]! - zp[Math.min(ch, zp.length - 1)]!) * Math.fround(sc[Math.min(ch, sc.length - 1)]!),
        );
      });
    }
    case 'qnn.requantize':
      return qnnRequantize(t(0), {
        inScale: qnnValues(vs[1]!),
        inZero: qnnValues(vs[2]!),
        outScale: qnnValues(vs[3]!)[0]!,
        outZero: qnnValues(vs[4]!)[0]!,
        axis: (at.axis as number) ?? -1,
        rounding: qnnDefault(at.rounding, 'UPWARD'),
        compute: qnnDefault(at.compute_dtype, 'int64'),
        out: ((at.out_dtype as string) || 'int8') as RDType,
      });
    case 'qnn.add':
    case 'qnn.subtract':
    case 'qnn.mul': {
      const [a, b] = [t(0), t(1)];
      const [sa, za, sb, zb, so, zo] = [2, 3, 4, 5, 6, 7].map((k) => qnnValues(vs[k]!));
      const common = {
        outScale: so![0]!,
        outZero: zo![0]!,
        rounding: qnnDefault(at.rounding, 'UPWARD'),
        compute: qnnDefault(at.compute_dtype, 'int64'),
      };
      const shape = bshape(a.shape, b.shape);
      const [ia, ib] = [bindex(shape, a.shape), bindex(shape, b.shape)];
      if (op === 'qnn.mul') {
        const prod = mk(shape, 'int32', (i) => (a.data[ia(i)]! - za![0]!) * (b.data[ib(i)]! - zb![0]!));
        return qnnRequantize(prod, {
          ...common,
          inScale: [Math.fround(Math.fround(sa![0]!) * Math.fround(sb![0]!))],
          inZero: [0],
          axis: -1,
          out: a.dtype,
        });
      }
      const side = (x: T64, s: number[], z: number[]) =>
        Math.fround(s[0]!) === Math.fround(common.outScale) && z[0] === common.outZero
          ? x
          : qnnRequantize(x, { ...common, inScale: s, inZero: z, axis: -1, out: 'int32' });
      const [qa, qb] = [side(a, sa!, za!), side(b, sb!, zb!)];
      const [lo, hi] = QRANGE[a.dtype]!;
      return mk(shape, a.dtype, (i) => {
        const v =
          op === 'qnn.add'
            ? qa.data[ia(i)]! + qb.data[ib(i)]! - common.outZero
            : qa.data[ia(i)]! - qb.data[ib(i)]! + common.outZero;
        return Math.min(Math.max(v, lo), hi);
      });
    }
    case 'qnn.concatenate': {
      const xs = (vs[0] as RValue[]).map((v) => asTensor(v, 'qnn.concatenate item'));
      const scales = (vs[1] as RValue[]).map((v) => qnnValues(v)[0]!);
      const zeros = (vs[2] as RValue[]).map((v) => qnnValues(v)[0]!);
      const [so, zo] = [qnnValues(vs[3]!)[0]!, qnnValues(vs[4]!)[0]!];
      const parts = xs.map((x, k) =>
        Math.fround(scales[k]!) === Math.fround(so) && zeros[k] === zo
          ? x
          : qnnRequantize(x, {
              inScale: [scales[k]!],
              inZero: [zeros[k]!],
              outScale: so,
              outZero: zo,
              axis: -1,
              rounding: qnnDefault(at.rounding, 'UPWARD'),
              compute: qnnDefault(at.compute_dtype, 'int64'),
              out: x.dtype,
            }),
      );
      return callOp('concatenate', [parts], { axis: at.axis ?? 0 });
    }
    case 'qnn.dense':
    case 'qnn.batch_matmul': {
      const [x, w] = [t(0), t(1)];
      const [zx, zw] = [qnnValues(vs[2]!), qnnValues(vs[3]!)];
      const dense = op === 'qnn.dense';
      const [B, M, K] = dense ? [1, x.shape[0]!, x.shape[1]!] : (x.shape as [number, number, number]);
      const N = dense ? w.shape[0]! : w.shape[1]!;
      const out = new Float64Array(B * M * N);
      for (let b = 0; b < B; b++)
        for (let i = 0; i < M; i++)
          for (let j = 0; j < N; j++) {
            let acc = 0;
            for (let k = 0; k < K; k++)
              acc +=
                (x.data[(b * M + i) * K + k]! - zx[0]!) *
                (w.data[(b * N + j) * K + k]! - zw[Math.min(j, zw.length - 1)]!);
            out[(b * M + i) * N + j] = acc;
          }
      return { shape: dense ? [M, N] : [B, M, N], dtype: 'int32', data: out };
    }
    case 'qnn.conv2d': {
      const [x, w] = [t(0), t(1)];
      const [zx, zw] = [qnnValues(vs[2]!), qnnValues(vs[3]!)];
      const kl = (at.kernel_layout as string) || 'OIHW';
      const oAxis = kl.indexOf('O');
      const xc: T64 = { shape: x.shape, dtype: 'float64', data: x.data.map((v) => v - zx[0]!) };
      const wc: T64 = {
        shape: w.shape,
        dtype: 'float64',
        data: w.data.map((v, i) => v - zw[Math.min(channelOf(w.shape, oAxis, i, zw.length), zw.length - 1)]!),
      };
      const { out_dtype: _od, ...rest } = at;
      const y = conv2d(xc, wc, rest);
      return { shape: y.shape, dtype: ((at.out_dtype as string) || 'int32') as RDType, data: y.data };
    }
    case 'qnn.leaky_relu': {
      const x = t(0);
      const [si, zi, so, zo] = [1, 2, 3, 4].map((k) => qnnValues(vs[k]!)[0]!);
      const alpha = (at.alpha as number) ?? 0.25;
      const same = Math.fround(si!) === Math.fround(so!) && zi === zo;
      const r = same
        ? x
        : qnnRequantize(x, {
            inScale: [si!],
            inZero: [zi!],
            outScale: so!,
            outZero: zo!,
            axis: -1,
            rounding: 'UPWARD',
            compute: 'int64',
            out: 'int32',
          });
      const z = qnnMultiplyShift(zo!, 1 - alpha, false);
      const [lo, hi] = QRANGE[x.dtype]!;
      return mk(x.shape, x.dtype, (i) => {
        const v = x.data[i]! < zi! ? qnnMultiplyShift(r.data[i]!, alpha, false) + z : r.data[i]!;
        return Math.min(Math.max(v, lo), hi);
      });
    }
    case 'qnn.avg_pool2d': {
      const x = t(0);
      const [si, zi, so, zo] = [1, 2, 3, 4].map((k) => qnnValues(vs[k]!)[0]!);
      const same = Math.fround(si!) === Math.fround(so!) && zi === zo;
      const r = same
        ? x
        : qnnRequantize(x, {
            inScale: [si!],
            inZero: [zi!],
            outScale: so!,
            outZero: zo!,
            axis: -1,
            rounding: 'UPWARD',
            compute: 'int64',
            out: 'int32',
          });
      const layout = (at.layout as string) || 'NCHW';
      const xr = toLayout(r, layout, 'NCHW');
      const [N, C, H, W] = xr.shape as number[];
      const [kh, kw] = at.pool_size as number[];
      const [sh, sw] = (at.strides as number[]) ?? [1, 1];
      let p = (at.padding as number[]) ?? [0, 0];
      if (p.length === 2) p = [p[0]!, p[1]!, p[0]!, p[1]!];
      const OH = Math.floor((H! + p[0]! + p[2]! - kh!) / sh!) + 1;
      const OW = Math.floor((W! + p[1]! + p[3]! - kw!) / sw!) + 1;
      const [lo, hi] = QRANGE[x.dtype]!;
      const out = mk([N!, C!, OH, OW], x.dtype, (i) => {
        const ow = i % OW;
        const oh = Math.floor(i / OW) % OH;
        const nc = Math.floor(i / (OW * OH));
        let sum = 0;
        let inside = 0;
        for (let a = 0; a < kh!; a++)
          for (let b = 0; b < kw!; b++) {
            const [y, xx] = [oh * sh! - p[0]! + a, ow * sw! - p[1]! + b];
            if (y < 0 || xx < 0 || y >= H! || xx >= W!) continue;
            sum += xr.data[(nc * H! + y) * W! + xx]!;
            inside++;
          }
        const count = at.count_include_pad === true ? kh! * kw! : Math.max(inside, 1);
        return Math.min(Math.max(Math.trunc(sum / count), lo), hi);
      });
      return toLayout(out, 'NCHW', layout);
    }
    case 'qnn.conv2d_transpose': {
      const [x, w] = [t(0), t(1)];
      const [zx, zw] = [qnnValues(vs[2]!), qnnValues(vs[3]!)];
      const oAxis = ((at.kernel_layout as string) || 'IOHW').indexOf('O');
      const xc: T64 = { shape: x.shape, dtype: 'float64', data: x.data.map((v) => v - zx[0]!) };
      const wc: T64 = {
        shape: w.shape,
        dtype: 'float64',
        data: w.data.map((v, i) => v - zw[Math.min(channelOf(w.shape, oAxis, i, zw.length), zw.length - 1)]!),
      };
      const { out_dtype: _od, ...rest } = at;
      const y = asTensor(callOp('nn.conv2d_transpose', [xc, wc], rest), 'conv2d_transpose');
      return { shape: y.shape, dtype: ((at.out_dtype as string) || 'int32') as RDType, data: y.data };
    }
    case 'image.dilation2d': {
      const dl = (at.data_layout as string) || 'NCHW';
      const x = toLayout(t(0), dl, 'NCHW');
      const w = dl === 'NHWC' ? transpose(t(1), [2, 0, 1]) : t(1);
      const [N, C, H, W] = x.shape as number[];
      const [, KH, KW] = w.shape as number[];
      const [sh, sw] = (at.strides as number[]) ?? [1, 1];
      const [dh, dw] = (at.dilations as number[]) ?? [1, 1];
      let p = (at.padding as number[]) ?? [0, 0];
      if (p.length === 2) p = [p[0]!, p[1]!, p[0]!, p[1]!];
      const OH = Math.floor((H! + p[0]! + p[2]! - ((KH! - 1) * dh! + 1)) / sh!) + 1;
      const OW = Math.floor((W! + p[1]! + p[3]! - ((KW! - 1) * dw! + 1)) / sw!) + 1;
      const out = mk([N!, C!, OH, OW], x.dtype, (i) => {
        const ow = i % OW;
        const oh = Math.floor(i / OW) % OH;
        const c = Math.floor(i / (OW * OH)) % C!;
        const n = Math.floor(i / (OW * OH * C!));
        let best = -Infinity;
        for (let a = 0; a < KH!; a++)
          for (let b = 0; b < KW!; b++) {
            const [y, xx] = [oh * sh! - p[0]! + a * dh!, ow * sw! - p[1]! + b * dw!];
            const v = y < 0 || xx < 0 || y >= H! || xx >= W! ? 0 : x.data[((n * C! + c) * H! + y) * W! + xx]!;
            best = Math.max(best, v + w.data[(c * KH! + a) * KW! + b]!);
          }
        return best;
      });
      return toLayout(out, 'NCHW', dl);
    }
    case 'dft': {
      const [re, im] = [t(0), t(1)];
      const n = re.shape[re.shape.length - 1]!;
      const sign = at.inverse === true ? 1 : -1;
      const rows = re.data.length / n;
      const [outRe, outIm] = [new Float64Array(re.data.length), new Float64Array(re.data.length)];
      for (let r = 0; r < rows; r++)
        for (let k = 0; k < n; k++) {
          let [sr, si] = [0, 0];
          for (let j = 0; j < n; j++) {
            const a = (sign * 2 * Math.PI * k * j) / n;
            const [xr, xi] = [re.data[r * n + j]!, im.data[r * n + j]!];
            sr += xr * Math.cos(a) - xi * Math.sin(a);
            si += xr * Math.sin(a) + xi * Math.cos(a);
          }
          const scale = at.inverse === true ? n : 1;
          [outRe[r * n + k], outIm[r * n + k]] = [sr / scale, si / scale];
        }
      return [
        { shape: re.shape, dtype: re.dtype, data: outRe.map((v) => roundTo(re.dtype, v)) },
        { shape: im.shape, dtype: im.dtype, data: outIm.map((v) => roundTo(im.dtype, v)) },
      ];
    }
    case 'stft': {
      const [x, win] = [t(0), t(1)];
      const nfft = at.n_fft as number;
      const hop = (at.hop_length as number) ?? Math.floor(nfft / 4);
      const wl = (at.win_length as number) ?? nfft;
      const F = at.onesided === false ? nfft : Math.floor(nfft / 2) + 1;
      const [B, L] = x.shape as number[];
      const T = Math.floor((L! - nfft) / hop) + 1;
      const norm = at.normalized === true ? Math.sqrt(nfft) : 1;
      return mk([B!, F, T, 2], x.dtype, (i) => {
        const part = i % 2;
        const tt = Math.floor(i / 2) % T;
        const f = Math.floor(i / (2 * T)) % F;
        const b = Math.floor(i / (2 * T * F));
        let acc = 0;
        for (let w = 0; w < wl; w++) {
          const a = (2 * Math.PI * f * w) / wl;
          const v = win.data[w]! * x.data[b * L! + tt * hop + w]!;
          acc += part === 0 ? v * Math.cos(a) : -v * Math.sin(a);
        }
        return roundTo(x.dtype, acc / norm);
      });
    }
    case 'image.crop_and_resize': {
      const layout = (at.layout as string) || 'NCHW';
      const x = toLayout(t(0), layout, 'NCHW');
      const [boxes, idx] = [t(1), t(2)];
      const [, C, H, W] = x.shape as number[];
      const [ch, cw] = at.crop_size as number[];
      const B = boxes.shape[0]!;
      const F = Math.fround;
      const fill = (at.extrapolation_value as number) ?? 0;
      const nearest = (at.method as string) === 'nearest_neighbor';
      const out = mk([B, C!, ch!, cw!], x.dtype, (o) => {
        const j = o % cw!;
        const i = Math.floor(o / cw!) % ch!;
        const c = Math.floor(o / (cw! * ch!)) % C!;
        const b = Math.floor(o / (cw! * ch! * C!));
        const [y1, x1, y2, x2] = [0, 1, 2, 3].map((k) => boxes.data[b * 4 + k]!);
        const y = F(F(y1! * (H! - 1)) + F(F(F(F(y2! - y1!) * (H! - 1)) / (ch! - 1)) * i));
        const xx = F(F(x1! * (W! - 1)) + F(F(F(F(x2! - x1!) * (W! - 1)) / (cw! - 1)) * j));
        if (y < 0 || y > H! - 1 || xx < 0 || xx > W! - 1) return fill;
        const n = idx.data[b]!;
        const at2 = (yy: number, xv: number) =>
          x.data[((n * C! + c) * H! + Math.min(Math.max(yy, 0), H! - 1)) * W! + Math.min(Math.max(xv, 0), W! - 1)]!;
        if (nearest) return at2(halfAway(y), halfAway(xx));
        const [y0, x0] = [Math.floor(y), Math.floor(xx)];
        const [ly, lx] = [y - y0, xx - x0];
        const top = at2(y0, x0) * (1 - lx) + at2(y0, x0 + 1) * lx;
        const bottom = at2(y0 + 1, x0) * (1 - lx) + at2(y0 + 1, x0 + 1) * lx;
        return roundTo(x.dtype, top * (1 - ly) + bottom * ly);
      });
      return toLayout(out, 'NCHW', layout);
    }
    case 'nn.conv3d_transpose': {
      // y[n, o, d·s − pad + kd, ...] += x[n, i, d, ...] · w[i, o, kd, kh, kw].
      const [x, w] = [t(0), t(1)];
      const [N, I, D, H, W] = x.shape as number[];
      const [, O, KD, KH, KW] = w.shape as number[];
      const three = (v: unknown, d: number) => {
        const l = (v as number[] | undefined) ?? [d, d, d];
        return l.length === 1 ? [l[0]!, l[0]!, l[0]!] : l;
      };
      const s = three(at.strides, 1);
      const op3 = three(at.output_padding, 0);
      let p = (at.padding as number[]) ?? [0, 0, 0];
      if (p.length === 1) p = Array<number>(6).fill(p[0]!);
      if (p.length === 3) p = [...p, ...p];
      const ks = [KD!, KH!, KW!];
      const ins = [D!, H!, W!];
      const outs = [0, 1, 2].map((a) => s[a]! * (ins[a]! - 1) + ks[a]! - (p[a]! + p[a + 3]!) + op3[a]!);
      const [OD, OH, OW] = outs as [number, number, number];
      const out = new Float64Array(N! * O! * OD * OH * OW);
      for (let n = 0; n < N!; n++)
        for (let i = 0; i < I!; i++)
          for (let d = 0; d < D!; d++)
            for (let h = 0; h < H!; h++)
              for (let ww = 0; ww < W!; ww++) {
                const v = x.data[(((n * I! + i) * D! + d) * H! + h) * W! + ww]!;
                for (let o = 0; o < O!; o++)
                  for (let a = 0; a < KD!; a++)
                    for (let b = 0; b < KH!; b++)
                      for (let e = 0; e < KW!; e++) {
                        const [z, y, q] = [d * s[0]! - p[0]! + a, h * s[1]! - p[1]! + b, ww * s[2]! - p[2]! + e];
                        if (z < 0 || y < 0 || q < 0 || z >= OD || y >= OH || q >= OW) continue;
                        out[(((n * O! + o) * OD + z) * OH + y) * OW + q] +=
                          v * w.data[(((i * O! + o) * KD! + a) * KH! + b) * KW! + e]!;
                      }
              }
      return { shape: [N!, O!, OD, OH, OW], dtype: x.dtype, data: out.map((v) => roundTo(x.dtype, v)) };
    }
    case 'nn.sparse_dense': {
      const [dense, data, indices, indptr] = [t(0), t(1), t(2), t(3)];
      const [br, bc] = data.shape.length === 3 ? [data.shape[1]!, data.shape[2]!] : [1, 1];
      const rows = (indptr.data.length - 1) * br;
      const [Dn, K] = dense.shape as number[];
      // S[row, col] · D[m, col] summed over the stored entries.
      const entry = (fn: (row: number, col: number, v: number) => void) => {
        for (let n = 0; n + 1 < indptr.data.length; n++)
          for (let j = indptr.data[n]!; j < indptr.data[n + 1]!; j++)
            for (let r = 0; r < br; r++)
              for (let q = 0; q < bc; q++) fn(n * br + r, indices.data[j]! * bc + q, data.data[(j * br + r) * bc + q]!);
      };
      const lhs = at.sparse_lhs === true;
      const shape = lhs ? [rows, Dn!] : [Dn!, rows];
      const out = new Float64Array(shape[0]! * shape[1]!);
      entry((row, col, v) => {
        for (let m = 0; m < Dn!; m++) {
          const d = dense.data[m * K! + col]!;
          if (lhs) out[row * Dn! + m] += v * d;
          else out[m * rows + row] += v * d;
        }
      });
      return { shape, dtype: dense.dtype, data: out.map((v) => roundTo(dense.dtype, v)) };
    }
    case 'nn.deformable_conv2d': {
      const [x, off, w] = [t(0), t(1), t(2)];
      const [N, C, H, W] = x.shape as number[];
      const [O, , KH, KW] = w.shape as number[];
      const [OH, OW] = [off.shape[2]!, off.shape[3]!];
      const dg = (at.deformable_groups as number) ?? 1;
      const [sh, sw] = (at.strides as number[]) ?? [1, 1];
      const [dh, dw] = (at.dilation as number[]) ?? [1, 1];
      const p = (at.padding as number[]) ?? [0, 0];
      const cg = C! / dg;
      const pixel = (n: number, c: number, yy: number, xv: number) =>
        yy < 0 || xv < 0 || yy > H! - 1 || xv > W! - 1 ? 0 : x.data[((n * C! + c) * H! + yy) * W! + xv]!;
      return mk([N!, O!, OH, OW], x.dtype, (o) => {
        const ow = o % OW;
        const oh = Math.floor(o / OW) % OH;
        const f = Math.floor(o / (OW * OH)) % O!;
        const n = Math.floor(o / (OW * OH * O!));
        let acc = 0;
        for (let c = 0; c < C!; c++) {
          const g = Math.floor(c / cg);
          for (let i = 0; i < KH!; i++)
            for (let j = 0; j < KW!; j++) {
              const ch = g * KH! * KW! * 2 + (i * KW! + j) * 2;
              const oy = off.data[((n * off.shape[1]! + ch) * OH + oh) * OW + ow]!;
              const ox = off.data[((n * off.shape[1]! + ch + 1) * OH + oh) * OW + ow]!;
              const yy = oh * sh! - p[0]! + i * dh! + oy;
              const xv = ow * sw! - p[1]! + j * dw! + ox;
              let v = 0;
              if (yy >= 0 && xv >= 0 && yy < H! && xv < W!) {
                const [y0, x0] = [Math.floor(yy), Math.floor(xv)];
                const [ly, lx] = [yy - y0, xv - x0];
                v =
                  (1 - ly) * (1 - lx) * pixel(n, c, y0, x0) +
                  (1 - ly) * lx * pixel(n, c, y0, x0 + 1) +
                  ly * (1 - lx) * pixel(n, c, y0 + 1, x0) +
                  ly * lx * pixel(n, c, y0 + 1, x0 + 1);
              }
              acc += v * w.data[((f * C! + c) * KH! + i) * KW! + j]!;
            }
        }
        return roundTo(x.dtype, acc);
      });
    }
    case 'qnn.simulated_quantize':
    case 'qnn.simulated_dequantize': {
      const x = t(0);
      const code = qnnValues(vs[1]!)[0]!;
      if (code === 0) return x;
      const [sc, zp] = [qnnValues(vs[2]!), qnnValues(vs[3]!)];
      const axis = x.shape.length ? axisOf((at.axis as number) ?? -1, x.shape.length) : 0;
      const [lo, hi] = QRANGE[['', 'int8', 'uint8', 'int32'][code]!]!;
      return mk(x.shape, x.dtype, (i) => {
        const ch = Math.floor(i / size(x.shape.slice(axis + 1))) % x.shape[axis]!;
        const [s, z] = [sc[ch % sc.length]!, zp[ch % zp.length]!];
        if (op === 'qnn.simulated_dequantize') return roundTo(x.dtype, (x.data[i]! - z) * s);
        return roundTo(x.dtype, Math.max(Math.min(halfAway(roundTo(x.dtype, x.data[i]! / s)) + z, hi), lo));
      });
    }
    default:
      throw new Error(`reference: no float64 definition of op ${op}`);
  }
}

function slice(x: T64, a: number, lo: number, hi: number): T64 {
  const shape = [...x.shape];
  shape[a] = hi - lo;
  const inner = size(x.shape.slice(a + 1));
  const d = x.shape[a]!;
  return mk(shape, x.dtype, (i) => {
    const r = i % inner;
    const k = Math.floor(i / inner) % (hi - lo);
    const o = Math.floor(i / (inner * (hi - lo)));
    return x.data[(o * d + lo + k) * inner + r]!;
  });
}

// ---- evaluation ----

class Env {
  private readonly vals = new Map<string, RValue>();
  constructor(readonly up: Env | null) {}
  get(name: string): RValue {
    for (let e: Env | null = this; e; e = e.up) {
      const v = e.vals.get(name);
      if (v !== undefined) return v;
    }
    throw new Error(`reference: unbound %${name}`);
  }
  set(name: string, v: RValue): void {
    this.vals.set(name, v);
  }
}

export type OnCall = (op: string, args: RValue[], attrs: Record<string, unknown>, out: RValue) => void;
interface Ctx {
  readonly meta: readonly T64[];
  readonly defs: ReadonlyMap<string, FnNode>;
  readonly onCall?: OnCall;
}

function evalNode(e: Node, env: Env, cx: Ctx): RValue {
  switch (e.n) {
    case 'var':
      return env.get(e.name);
    case 'global': {
      const f = cx.defs.get(e.name);
      if (!f) throw new Error(`reference: no @${e.name}`);
      return { fn: f, env: new Env(null) };
    }
    case 'lit':
      return e.value;
    case 'meta': {
      const m = cx.meta[e.index];
      if (!m) throw new Error(`reference: meta constant ${e.index} not supplied`);
      return m;
    }
    case 'tuple':
      return e.items.map((i) => evalNode(i, env, cx));
    case 'get': {
      const v = evalNode(e.of, env, cx);
      if (!Array.isArray(v)) throw new Error('reference: .N of a non-tuple');
      return (v as RValue[])[e.index]!;
    }
    case 'op': {
      const args = e.args.map((a) => evalNode(a, env, cx));
      if (e.op === 'call_lowered') return apply(args[0] as Closure, [...(args[1] as RValue[])], cx);
      const out = callOp(e.op, args, e.attrs);
      cx.onCall?.(e.op, args, e.attrs, out);
      return out;
    }
    case 'fn':
      return { fn: e, env };
    case 'apply': {
      const f = evalNode(e.f, env, cx);
      if (Array.isArray(f) || !('fn' in (f as object))) throw new Error('reference: calling a non-function');
      return apply(
        f as Closure,
        e.args.map((a) => evalNode(a, env, cx)),
        cx,
      );
    }
    case 'if': {
      const c = asTensor(evalNode(e.cond, env, cx), 'if condition');
      return evalNode(c.data[0] ? e.then : e.else, env, cx);
    }
    case 'seq': {
      const inner = new Env(env);
      for (const [name, value] of e.binds) inner.set(name, evalNode(value, inner, cx));
      return evalNode(e.last, inner, cx);
    }
  }
}

let depth = 0;
function apply(c: Closure, args: RValue[], cx: Ctx): RValue {
  if (++depth > 200) throw new Error('reference: recursion too deep');
  try {
    const env = new Env(c.env);
    c.fn.params.forEach((p, i) => env.set(p.name, args[i]!));
    return evalNode(c.fn.body, env, cx);
  } finally {
    depth--;
  }
}

export interface RefProgram {
  readonly params: readonly RefParam[];
  run(inputs: readonly T64[], meta: readonly T64[], onCall?: OnCall): RValue;
}

/** Parses Relay text on its own terms; `run` evaluates the main function in float64 (rounding to each dtype). */
export function referenceProgram(src: string): RefProgram {
  const r = new Reader(scan(src));
  const main = r.module();
  return {
    params: main.params,
    run: (inputs, meta, onCall) => apply({ fn: main, env: new Env(null) }, [...inputs], { meta, defs: r.defs, onCall }),
  };
}
