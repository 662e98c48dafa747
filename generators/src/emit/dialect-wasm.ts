// Emitter: wasm dialect ops; elementwise ops get AssemblyScript SIMD kernels rendered from `compute`, others call a hand-written kernel.

import type { CallFn, Expr } from '../expr/ast.ts';
import type { Model, OpModel } from '../spec/model.ts';
import { addImport, generatedHeader, GENERATED, names, paths, sourceOf, tsFile, type EmittedFile } from './files.ts';
import { isTensor } from './types.ts';

export const WASM = 'wasm';

/** The AssemblyScript home of generated kernels, compiled by runtime/src/dialects/wasm/build.mjs. */
const AS_DIR = `${GENERATED}/dialects/wasm/as`;
const asPath = (op: string) => `${AS_DIR}/${op}.ts`;

type Width = 'f32' | 'f64';
const WIDTHS: readonly Width[] = ['f32', 'f64'];

const served = (op: OpModel) => op.dialects.some((d) => d.name === WASM) && op.out.shape.kind !== 'host';

export function emitWasmDialect(model: Model): EmittedFile[] {
  const ops = model.ops.filter(served);
  const elementwise = ops.filter((op) => op.compute);
  return [...ops.map(emitWasmOp), ...elementwise.map(emitAsKernel), emitAsIndex(elementwise)];
}

function emitWasmOp(op: OpModel): EmittedFile {
  const path = paths.dialect(WASM, op.name);
  const n = names(op);
  const level = op.dialects.find((d) => d.name === WASM)!.level;
  const kernel = n.kernel(WASM);
  const tensors = op.args.filter(isTensor).map((a) => `'${a.name}'`);
  const attrs = op.args.filter((a) => !isTensor(a)).map((a) => `'${a.name}'`);
  return tsFile(path, 'dialect-wasm', sourceOf(op), (sf) => {
    addImport(sf, path, paths.runtime('dialect'), ['DialectOp'], true);
    addImport(sf, path, paths.bridge(op.name), [n.bridge]);
    addImport(sf, path, paths.bridge(op.name), [n.attrs, n.inputs], true);
    addImport(sf, path, paths.schema(op.schema), [n.args], true);
    if (op.out.tuple) addImport(sf, path, paths.runtime('tensor'), ['TensorType'], true);
    let build: string;
    if (op.compute) {
      addImport(sf, path, paths.runtime('dialects/wasm/index'), ['elementwise']);
      build = `(_attrs, out, inputs) => elementwise<${n.inputs}, ${n.attrs}>('${op.name}', out.dtype, inputs, [${tensors.join(', ')}], [${attrs.join(', ')}])`;
    } else {
      addImport(sf, path, paths.runtime('dialects/wasm/index'), ['wasmServes']);
      addImport(sf, path, paths.kernelStub(WASM, op.name), [kernel]);
      build = `(_attrs, out, inputs) => (wasmServes(out, inputs) ? ${kernel} : null)`;
    }
    sf.addVariableStatement({
      isExported: true,
      docs: [
        `raf.op.${WASM}.${op.name} at level ${level}; float32 and float64 (other dtypes fall back to a lower level).`,
      ],
      declarations: [
        {
          name: n.dialectOp(WASM),
          type: `DialectOp<${n.args}, ${n.inputs}, ${n.attrs}${op.out.tuple ? ', readonly TensorType[]' : ''}>`,
          initializer: `{ op: '${op.name}', dialect: '${WASM}', level: ${level}, bridge: ${n.bridge}, build: ${build} }`,
        },
      ],
    });
  });
}

/** Plain text, not ts-morph: AssemblyScript is TypeScript syntax but not TypeScript types (v128, usize). */
function asFile(path: string, source: string, body: string): EmittedFile {
  return {
    path,
    content: `${generatedHeader('dialect-wasm', source)}\n\n${body}`,
    emitter: 'dialect-wasm',
    source,
    kind: 'generated',
  };
}

function emitAsKernel(op: OpModel): EmittedFile {
  const tensors = op.args.filter(isTensor).map((a) => a.name);
  const attrs = op.args.filter((a) => !isTensor(a)).map((a) => a.name);
  const helpers = new Set<string>();
  const fns = WIDTHS.map((width) => {
    const lanes = width === 'f32' ? 4 : 2;
    const names = (suffix: string) =>
      Object.fromEntries([...tensors.map((t) => [t, `${t}v${suffix}`]), ...attrs.map((a) => [a, `${a}v`])]);
    const used = new Set<string>();
    const expr = renderAs(op.compute!.expr, names(''), width, used);
    used.forEach((h) => helpers.add(h));
    const params = ['out: usize', ...tensors.map((t) => `${t}: usize`), ...attrs.map((a) => `${a}: f64`), 'n: i32'];
    // One vector at offset i: the whole loop body of plain arithmetic, the odd vector after a two-vector loop.
    const one = [...tensors.map((t) => `const ${t}v = v128.load(${t} + i);`), `v128.store(out + i, ${expr});`];
    // A vmath function (exp, sigmoid, tanh, ...) is a long chain of dependent steps: with one vector a step the core
    // waits on it, with two it works on both (sigmoid over 2^20 float32: 1.85 → 1.1 ms). Plain arithmetic is bound by
    // memory and keeps the one-vector loop.
    const math = mathNames(used);
    const pair = used.size
      ? [
          `// Two vectors a step: ${math} ${math.includes(',') ? 'are long chains' : 'is a long chain'} of dependent steps, which one vector leaves the core waiting on.`,
          'let i: usize = 0;',
          'for (; i + 32 <= bytes; i += 32) {',
          ...tensors.flatMap((t) => [`const ${t}v = v128.load(${t} + i);`, `const ${t}v1 = v128.load(${t} + i, 16);`]),
          `const r0 = ${expr};`,
          `const r1 = ${renderAs(op.compute!.expr, names('1'), width, new Set())};`,
          'v128.store(out + i, r0);',
          'v128.store(out + i, r1, 16);',
          '}',
          'if (i < bytes) {',
          ...one,
          '}',
        ]
      : ['for (let i: usize = 0; i < bytes; i += 16) {', ...one, '}'];
    return [
      `/** ${op.name} over n ${width} elements, ${lanes} lanes at a time (buffers are padded to whole vectors). */`,
      `export function ${op.name}_${width}(${params.join(', ')}): void {`,
      ...attrs.map((a) => `const ${a}v = ${vec(width)}.splat(<${width}>${a});`),
      ...hoistedConstants(expr, width),
      `const bytes = (<usize>n * ${width === 'f32' ? 4 : 8} + 15) & ~15;`,
      ...pair,
      '}',
    ].join('\n');
  });
  // One tensor input always has the output's shape: only ops of two or more get the broadcast form.
  const rows = tensors.length > 1 ? WIDTHS.map((width) => rowsKernel(op, tensors, attrs, width, helpers)) : [];
  const imports = [
    ...(rows.length ? ["import { ROW_SCRATCH, tailLoad, tailStore } from '../../../../dialects/wasm/as/rows';\n"] : []),
    ...(helpers.size
      ? [`import { ${[...helpers].sort().join(', ')} } from '../../../../dialects/wasm/as/vmath';\n`]
      : []),
  ].join('');
  return asFile(asPath(op.name), sourceOf(op), `${imports}${imports ? '\n' : ''}${[...fns, ...rows].join('\n\n')}\n`);
}

/**
 * The broadcast form `<op>_<width>_rows`: the output as `rows` contiguous runs of `inner` elements; each input starts
 * a run at the element offset its starts array (i32 per row) gives and steps 1 or 0 along it (see broadcastRows in the
 * CPU dialect). A step-0 input is splat once per run into a scratch slot, read with its offset masked to 0, so the
 * vector loop has no branch; a run's last partial vector is staged through scratch.
 */
function rowsKernel(
  op: OpModel,
  tensors: readonly string[],
  attrs: readonly string[],
  width: Width,
  helpers: Set<string>,
): string {
  if (tensors.length > 7) throw new Error(`${op.name}: the wasm rows kernel takes at most 7 tensor inputs`);
  const shift = width === 'f32' ? 2 : 3;
  const valueNames = Object.fromEntries([...tensors.map((t) => [t, `${t}v`]), ...attrs.map((a) => [a, `${a}v`])]);
  const expr = renderAs(op.compute!.expr, valueNames, width, helpers);
  const params = [
    'out: usize',
    ...tensors.map((t) => `${t}: usize`),
    ...tensors.map((t) => `${t}Starts: usize`),
    ...tensors.map((t) => `${t}Step: i32`),
    ...attrs.map((a) => `${a}: f64`),
    'rows: i32',
    'inner: i32',
  ];
  return [
    `/** ${op.name} over a broadcast walk of ${width} elements: rows runs of inner, each input stepping 1 or 0. */`,
    `export function ${op.name}_${width}_rows(${params.join(', ')}): void {`,
    ...attrs.map((a) => `const ${a}v = ${vec(width)}.splat(<${width}>${a});`),
    ...hoistedConstants(expr, width),
    `const end = <usize>inner << ${shift};`,
    'const vecEnd = end & ~15;',
    ...tensors.map((t) => `const ${t}Mask: usize = ${t}Step ? <usize>-1 : 0;`),
    'for (let r = 0; r < rows; r++) {',
    'const o = out + <usize>r * end;',
    ...tensors.flatMap((t, k) => [
      `let ${t}p = ${t} + (<usize>load<i32>(${t}Starts + (<usize>r << 2)) << ${shift});`,
      `if (!${t}Step) {`,
      `v128.store(ROW_SCRATCH + ${16 * k}, ${vec(width)}.splat(load<${width}>(${t}p)));`,
      `${t}p = ROW_SCRATCH + ${16 * k};`,
      '}',
    ]),
    'let i: usize = 0;',
    ...scalarRuns(tensors, expr),
    'for (; i < vecEnd; i += 16) {',
    ...tensors.map((t) => `const ${t}v = v128.load(${t}p + (i & ${t}Mask));`),
    `v128.store(o + i, ${expr});`,
    '}',
    'if (i < end) {',
    ...tensors.map((t) => `const ${t}v = tailLoad(${t}p + (i & ${t}Mask), ${t}Step, end - i);`),
    `tailStore(o + i, ${expr}, end - i);`,
    '}',
    '}',
    '}',
  ].join('\n');
}

/**
 * For a binary op, the runs where one input is a single value (a per-channel bias, a scalar): that value splat in a
 * register and only the other input loaded, rather than reloading the splat from scratch at a masked offset (a
 * [1,120,12,80] + [1,120,1,1] add: about a quarter off, now ahead of tfjs-wasm's). Each leaves i at the vector end,
 * so the general loop after it has nothing left to do.
 */
function scalarRuns(tensors: readonly string[], expr: string): string[] {
  if (tensors.length !== 2) return [];
  return tensors.flatMap((one, k) => {
    const other = tensors[1 - k]!;
    return [
      `${k ? 'else ' : ''}if (!${one}Step && ${other}Step) {`,
      `const ${one}v = v128.load(${one}p);`,
      'for (; i < vecEnd; i += 16) {',
      `const ${other}v = v128.load(${other}p + i);`,
      `v128.store(o + i, ${expr});`,
      '}',
      '}',
    ];
  });
}

/** The math functions behind a kernel's vmath helpers, for its comment: vsigmoidWith_f32 and vsigmoidK_f32 are sigmoid. */
const mathNames = (helpers: ReadonlySet<string>): string =>
  [...new Set([...helpers].map((h) => h.replace(/^v/, '').replace(/(With|K)?_f(32|64)$/, '')))].sort().join(', ');

/** The module entry re-exports every generated kernel; it changes only when ops gain or lose a wasm level. */
function emitAsIndex(ops: readonly OpModel[]): EmittedFile {
  const body = ops.length ? ops.map((op) => `export * from './${op.name}';`).join('\n') : 'export {};';
  return asFile(`${AS_DIR}/index.ts`, 'specs/**/*.yaml', `${body}\n`);
}

// ---------------------------------------------------------------- expression → AssemblyScript SIMD

const vec = (w: Width) => (w === 'f32' ? 'f32x4' : 'f64x2');

/** A vector or a lane mask; comparisons yield masks (all-ones lanes), which select and the logical ops consume directly. */
interface Code {
  readonly text: string;
  readonly kind: 'num' | 'bool';
}

type VectorFn = (
  args: readonly string[],
  source: readonly Expr[],
  w: Width,
  helpers: Set<string>,
  hoist: ReadonlySet<string>,
) => string;

const builtin =
  (name: string): VectorFn =>
  (args, _s, w) =>
    `${vec(w)}.${name}(${args.join(', ')})`;
/**
 * vmath helpers that also take their vector constants as arguments, `<name>With_<w>(x, k0, …)` with each k from
 * `<name>K_<w>(i)`: a generated loop loads them once before it starts, since V8 reloads a table constant at every use
 * inside a loop that stores (it cannot tell the stores miss the table). The number is how many constants.
 */
const HOISTED: Readonly<Record<string, number>> = { vsigmoid_f32: 13 };
const withName = (fn: string) => fn.replace(/_(f32|f64)$/, 'With_$1');

/** The locals a hoisted helper's constants live in. */
const hoistedLocals = (helper: string): string[] =>
  Array.from({ length: HOISTED[helper]! }, (_, i) => `${helper.replace(/_f(32|64)$/, '')}K${i}`);

/** A function of runtime/src/dialects/wasm/as/vmath.ts, one per width. */
const helper =
  (name: string): VectorFn =>
  (args, _s, w, helpers, hoist) => {
    const fn = `${name}_${w}`;
    if (hoist.has(fn)) {
      helpers.add(`${name}With_${w}`).add(`${name}K_${w}`);
      return `${name}With_${w}(${[...args, ...hoistedLocals(fn)].join(', ')})`;
    }
    helpers.add(fn);
    return `${fn}(${args.join(', ')})`;
  };

/** Before a loop over `expr`: the constants of each hoisted helper it calls, loaded once. */
function hoistedConstants(expr: string, w: Width): string[] {
  return Object.keys(HOISTED)
    .filter((fn) => fn.endsWith(`_${w}`) && expr.includes(`${withName(fn)}(`))
    .flatMap((fn) => {
      const k = fn.replace(/_f(32|64)$/, `K_${w}`);
      return [
        `// ${fn}'s constants, loaded once here rather than at every use inside the loop (see vmath.ts).`,
        `const ${hoistedLocals(fn)
          .map((l, i) => `${l} = ${k}(${i})`)
          .join(', ')};`,
      ];
    });
}
const splat = (w: Width, value: number | string) => `${vec(w)}.splat(<${w}>${value})`;

/**
 * A function vmath has no vector form of (inverse trigonometry, remainders) or that only means something on integers
 * (bitwise): an op computing it is served by the CPU and WebGPU dialects; listing wasm is an error naming the function.
 */
const unserved =
  (name: string): VectorFn =>
  () => {
    throw new Error(`compute function ${name}() has no wasm SIMD form: leave wasm out of the op's dialects`);
  };

// Typed over CallFn so a function added to the expression IR is a compile error here until it has a rendering.
const FUNCTIONS: { readonly [F in CallFn]: VectorFn } = {
  exp: helper('vexp'),
  log: helper('vlog'),
  sqrt: builtin('sqrt'),
  rsqrt: ([x], _s, w) => `${vec(w)}.div(${splat(w, 1)}, ${vec(w)}.sqrt(${x}))`,
  sin: helper('vsin'),
  cos: helper('vcos'),
  tan: helper('vtan'),
  tanh: helper('vtanh'),
  sigmoid: helper('vsigmoid'),
  erf: helper('verf'),
  abs: builtin('abs'),
  sign: helper('vsign'),
  floor: builtin('floor'),
  ceil: builtin('ceil'),
  // nearest rounds ties to even, the IR's meaning.
  round: builtin('nearest'),
  // Wasm's min and max propagate NaN, as Math.min and Math.max do.
  min: builtin('min'),
  max: builtin('max'),
  clamp: ([x, lo, hi], _s, w) => `${vec(w)}.min(${vec(w)}.max(${x}, ${lo}), ${hi})`,
  pow: (args, [, exponent], w, helpers, hoist) =>
    exponent!.kind === 'const' && exponent!.value === 2
      ? `${vec(w)}.mul(${args[0]}, ${args[0]})`
      : helper('vpow')(args, [], w, helpers, hoist),
  log1p: helper('vlog1p'),
  expm1: helper('vexpm1'),
  softplus: helper('vsoftplus'),
  reciprocal: ([x], _s, w) => `${vec(w)}.div(${splat(w, 1)}, ${x})`,
  asin: unserved('asin'),
  acos: unserved('acos'),
  atan: unserved('atan'),
  sinh: unserved('sinh'),
  cosh: unserved('cosh'),
  asinh: unserved('asinh'),
  acosh: unserved('acosh'),
  atanh: unserved('atanh'),
  trunc: builtin('trunc'),
  // Predicates give lane masks (see PREDICATE_FNS): NaN is the one value unequal to itself.
  isnan: ([x], _s, w) => `${vec(w)}.ne(${x}, ${x})`,
  isinf: ([x], _s, w) => `${vec(w)}.eq(${vec(w)}.abs(${x}), ${splat(w, 'Infinity')})`,
  fmod: unserved('fmod'),
  mod: unserved('mod'),
  bitand: unserved('bitand'),
  bitor: unserved('bitor'),
  bitxor: unserved('bitxor'),
  bitnot: unserved('bitnot'),
  shl: unserved('shl'),
  shr: unserved('shr'),
};

/** Functions whose rendering is a lane mask rather than a vector of numbers. */
const PREDICATE_FNS: ReadonlySet<CallFn> = new Set<CallFn>(['isnan', 'isinf']);

const ARITHMETIC = { '+': 'add', '-': 'sub', '*': 'mul', '/': 'div' } as const;
const COMPARE = { '<': 'lt', '<=': 'le', '>': 'gt', '>=': 'ge', '==': 'eq', '!=': 'ne' } as const;

function literal(value: number, w: Width): string {
  if (Number.isNaN(value)) return splat(w, 'NaN');
  if (!Number.isFinite(value)) return splat(w, value > 0 ? 'Infinity' : '-Infinity');
  return splat(w, Object.is(value, -0) ? '-0.0' : String(value));
}

/** One vector expression computing `expr`; every node is a call, so no precedence rules are needed. */
export function renderAs(expr: Expr, names: Readonly<Record<string, string>>, w: Width, helpers: Set<string>): string {
  // Hoisted constants stay in registers only for one call site: an expression calling a helper twice (a gradient's
  // σ(x)·(1 − σ(x))) would keep two sets live, past the 15 xmm registers V8 gives wasm, so it keeps the table form.
  const all = new Set(Object.keys(HOISTED));
  const first = renderWith(expr, names, w, new Set(), all);
  const once = new Set([...all].filter((fn) => first.split(`${withName(fn)}(`).length === 2));
  const used = new Set<string>();
  const text = renderWith(expr, names, w, used, once);
  for (const h of used) helpers.add(h);
  return text;
}

function renderWith(
  expr: Expr,
  names: Readonly<Record<string, string>>,
  w: Width,
  helpers: Set<string>,
  hoist: ReadonlySet<string>,
): string {
  const V = vec(w);
  const asNum = (c: Code): string => (c.kind === 'num' ? c.text : `v128.and(${c.text}, ${splat(w, 1)})`);
  const asBool = (c: Code): string => (c.kind === 'bool' ? c.text : `${V}.ne(${c.text}, ${splat(w, 0)})`);
  const visit = (node: Expr): Code => {
    switch (node.kind) {
      case 'var': {
        const name = names[node.name];
        if (name === undefined) throw new Error(`renderAs: no name given for variable '${node.name}'`);
        return { text: name, kind: 'num' };
      }
      case 'const':
        return { text: literal(node.value, w), kind: 'num' };
      case 'unary':
        return node.op === 'not'
          ? { text: `v128.not(${asBool(visit(node.arg))})`, kind: 'bool' }
          : { text: `${V}.neg(${asNum(visit(node.arg))})`, kind: 'num' };
      case 'binary': {
        const { op } = node;
        const [lhs, rhs] = [visit(node.lhs), visit(node.rhs)];
        if (op === '**')
          return {
            text: FUNCTIONS.pow([asNum(lhs), asNum(rhs)], [node.lhs, node.rhs], w, helpers, hoist),
            kind: 'num',
          };
        if (op === '&&' || op === '||')
          return { text: `v128.${op === '&&' ? 'and' : 'or'}(${asBool(lhs)}, ${asBool(rhs)})`, kind: 'bool' };
        if ((op === '==' || op === '!=') && lhs.kind === 'bool' && rhs.kind === 'bool') {
          // Masks are equal where their bits agree: xor is "differ".
          const differ = `v128.xor(${lhs.text}, ${rhs.text})`;
          return { text: op === '!=' ? differ : `v128.not(${differ})`, kind: 'bool' };
        }
        if (op in COMPARE)
          return { text: `${V}.${COMPARE[op as keyof typeof COMPARE]}(${asNum(lhs)}, ${asNum(rhs)})`, kind: 'bool' };
        return { text: `${V}.${ARITHMETIC[op as keyof typeof ARITHMETIC]}(${asNum(lhs)}, ${asNum(rhs)})`, kind: 'num' };
      }
      case 'call':
        return {
          text: FUNCTIONS[node.fn](
            node.args.map((a) => asNum(visit(a))),
            node.args,
            w,
            helpers,
            hoist,
          ),
          kind: PREDICATE_FNS.has(node.fn) ? 'bool' : 'num',
        };
      case 'select': {
        const cond = asBool(visit(node.cond));
        const [t, f] = [visit(node.ifTrue), visit(node.ifFalse)];
        const both = t.kind === 'bool' && f.kind === 'bool';
        return {
          text: `v128.bitselect(${both ? t.text : asNum(t)}, ${both ? f.text : asNum(f)}, ${cond})`,
          kind: both ? 'bool' : 'num',
        };
      }
    }
  };
  return asNum(visit(expr));
}
