// Formulas (`grad:` per input, `tests.oracle`) type-checked against the schemas of the ops they call: arity, keyword
// args, tensor vs number vs bool vs list, tuple outputs (a tuple op's result, y and dy are lists, one per output),
// and the dependants of a schema (an op reusing another's args must pass on what the other's gradient reads and test
// what the other's tests vary).

import { didYouMean, SpecError, type Loc } from './errors.ts';
import { FORMULA_LITERALS, formulaRefs, parseFormula, printFormula, scalarOperator, type Formula } from './formula.ts';
import { RESERVED_WORDS } from './identifiers.ts';
import type { Path } from './load.ts';
import type { ArgModel, OpModel } from './model.ts';

type At = (path: Path, key?: boolean) => Loc;

/**
 * The type of a formula's value: an arg type (`Tensor`, `int`, `float?`, ...), `list` (an empty list literal),
 * `host` (a host op's result, typed only at run time) or `unknown` (an error was already reported).
 */
export interface ValueType {
  readonly t: string;
  /** The arg it reads, for messages (and: an int arg is an int, not a literal that may be a float). */
  readonly name?: string;
  /** For a list of tensors from a tuple op: its output names (null: as many as the op returns), and what it is. */
  readonly outputs?: readonly string[] | null;
  readonly desc?: string;
  /** Written as a literal number (an int literal fits a float arg; a named int arg passed positionally does not). */
  readonly literal?: boolean;
}

const UNKNOWN: ValueType = { t: 'unknown' };
const TENSOR: ValueType = { t: 'Tensor' };
const isTensorType = (t: string) => t.startsWith('Tensor');
const base = (t: string) => t.replace('?', '');

/** What a formula may read, with types. */
export type FormulaEnv = ReadonlyMap<string, ValueType>;

/** A tuple op's outputs as a value (its result, or its y and dy in its own gradient). */
function tupleValue(op: OpModel, desc: string): ValueType {
  return { t: 'Tensor[]', outputs: op.out.outputs, desc };
}

function outputsText(v: ValueType): string {
  return v.outputs ? `${v.outputs.length} tensors, ${v.outputs.join(' and ')}` : 'one tensor per output';
}

/** How to pick one tensor of a list, as a hint. */
function selectHint(v: ValueType, src: string): string {
  if (v.outputs?.length) return `select one output: ${src}[0] or ${src}.${v.outputs[0]}`;
  return `select one by index (${src}[0]), or pass the list to an op that takes a Tensor[]`;
}

/** Checks every formula of `op` (its gradient, its oracle) and what its outputs are named. */
export function checkFormulas(op: OpModel, at: At, ops: ReadonlyMap<string, OpModel>, errors: SpecError[]): void {
  checkOutputNames(op, at, errors);
  checkReusedTests(op, at, ops, errors);
  const g = op.grad;
  if (g.kind === 'formulas') {
    const env = new Map<string, ValueType>();
    for (const s of g.saves) {
      if (s === 'y') env.set('y', op.out.tuple ? tupleValue(op, `the outputs of ${op.name}`) : TENSOR);
      else {
        const a = op.args.find((x) => x.name === s);
        if (a) env.set(s, { t: a.type, name: s });
      }
    }
    env.set('dy', op.out.tuple ? tupleValue(op, `the gradients of ${op.name}'s outputs`) : TENSOR);
    for (const a of op.args) if (!isTensorType(a.type)) env.set(a.name, { t: a.type, name: a.name });
    for (const input of g.inputs) {
      const loc = at(['grad', input.name]);
      const what = `formula for '${input.name}'`;
      const checker = new Checker(loc, ops, env, what, errors, true);
      const v = checker.type(input.formula);
      const arg = op.args.find((a) => a.name === input.name);
      if (arg) checker.result(input.formula, v, arg.type === 'Tensor[]' ? 'Tensor[]' : 'Tensor', `'${input.name}'`);
    }
    checkReusedSchema(op, at, ops, errors);
  }
  const oracle = op.tests.oracle;
  if (oracle === null) return;
  const env = new Map<string, ValueType>(op.args.map((a) => [a.name, { t: a.type, name: a.name }]));
  if (typeof oracle === 'string') {
    const loc = at(['tests', 'oracle']);
    const f = parsed(oracle);
    if (!f) return;
    const checker = new Checker(loc, ops, env, 'oracle', errors);
    const v = checker.type(f);
    if (op.out.outputs) {
      errors.push(
        new SpecError(
          loc,
          `one oracle formula for ${op.name}'s ${op.out.outputs.length} outputs (${op.out.outputs.join(', ')})`,
          `give one formula per output: oracle: { ${op.out.outputs.map((n) => `${n}: ...`).join(', ')} }`,
        ),
      );
    } else checker.result(f, v, op.out.tuple ? 'Tensor[]' : 'Tensor', `${op.name}'s result`);
  } else {
    for (const [out, text] of Object.entries(oracle)) {
      const f = parsed(text);
      if (!f) continue;
      const checker = new Checker(at(['tests', 'oracle', out]), ops, env, `oracle for '${out}'`, errors);
      checker.result(f, checker.type(f), 'Tensor', `output '${out}'`);
    }
  }
}

/** Parse errors are reported when the model is built; here a formula that does not parse is skipped. */
function parsed(text: string): Formula | undefined {
  try {
    return parseFormulaCached(text);
  } catch {
    return undefined;
  }
}

const cache = new Map<string, Formula>();
function parseFormulaCached(text: string): Formula {
  let f = cache.get(text);
  if (!f) cache.set(text, (f = parseFormula(text)));
  return f;
}

/** Output names are read in formulas (`y.indices`) and become names in generated code. */
function checkOutputNames(op: OpModel, at: At, errors: SpecError[]): void {
  (op.out.outputs ?? []).forEach((n, i) => {
    if (RESERVED_WORDS.has(n) || Object.hasOwn(FORMULA_LITERALS, n) || !/^[A-Za-z_]\w*$/.test(n))
      errors.push(
        new SpecError(
          at(['out', 'outputs', i]),
          /^[A-Za-z_]\w*$/.test(n)
            ? `output '${n}' is a reserved word (in TypeScript or in formulas)`
            : `output ${JSON.stringify(n)} is not a name`,
          `rename it, e.g. '${/^[A-Za-z_]\w*$/.test(n) ? n : 'out'}_value'`,
        ),
      );
  });
}

/**
 * An op that reuses another's schema (`schema: cumsum`) gets every arg added there. When the owner's gradient reads an
 * arg and this op's gradient does not, the arg changes the forward and this gradient ignores it: refused.
 */
function checkReusedSchema(op: OpModel, at: At, ops: ReadonlyMap<string, OpModel>, errors: SpecError[]): void {
  if (op.schema === op.name || op.grad.kind !== 'formulas') return;
  const owner = ops.get(op.schema);
  if (!owner || owner.grad.kind !== 'formulas') return;
  const attrs = new Set(op.args.filter((a) => !isTensorType(a.type)).map((a) => a.name));
  const readBy = (g: typeof op.grad) =>
    new Set(
      g.kind === 'formulas'
        ? g.inputs.flatMap((i) => formulaRefs(i.formula).refs.map((r) => (r as { name: string }).name))
        : [],
    );
  const ownerReads = readBy(owner.grad);
  const mine = readBy(op.grad);
  const missed = [...attrs].filter((a) => ownerReads.has(a) && !mine.has(a));
  if (!missed.length) return;
  const first = op.grad.inputs[0]!;
  errors.push(
    new SpecError(
      at(['grad', first.name]),
      `${op.name} reuses the args of ${owner.name} (schema: ${owner.name}), whose gradient reads ${missed.map((m) => `'${m}'`).join(', ')}; ${op.name}'s gradient never does, so it would ignore ${missed.length > 1 ? 'them' : 'it'}`,
      `pass ${missed.map((m) => `${m}=${m}`).join(', ')} on in ${op.name}'s gradient, or give ${op.name} args of its own (args: instead of schema:)`,
    ),
  );
}

/**
 * An op that reuses another's schema is tested over the args the owner's tests vary (its grid, its cases): an arg added
 * to the owner and tested there, but never by this op, would reach this op's kernel and gradient untested.
 */
function checkReusedTests(op: OpModel, at: At, ops: ReadonlyMap<string, OpModel>, errors: SpecError[]): void {
  if (op.schema === op.name) return;
  const owner = ops.get(op.schema);
  if (!owner) return;
  const varied = (o: OpModel) =>
    new Set([...Object.keys(o.tests.grid), ...o.tests.cases.flatMap((c) => Object.keys(c.args ?? {}))]);
  const mine = varied(op);
  const missed = [...varied(owner)].filter((a) => !mine.has(a) && op.args.some((x) => x.name === a));
  if (!missed.length) return;
  errors.push(
    new SpecError(
      at(['schema']),
      `${op.name} reuses the args of ${owner.name}, whose tests vary ${missed.map((m) => `'${m}'`).join(', ')}; ${op.name}'s tests never do, so its kernel and gradient would go untested there`,
      `add ${missed.map((m) => `${m}: [...]`).join(', ')} to ${op.name}'s tests.grid (or a tests.cases entry)`,
    ),
  );
}

/** Infers the type of each subformula and refuses what the callee's schema does not accept, at its position. */
class Checker {
  constructor(
    private readonly loc: Loc,
    private readonly ops: ReadonlyMap<string, OpModel>,
    private readonly env: FormulaEnv,
    private readonly what: string,
    private readonly errors: SpecError[],
    /** Rendered into TypeScript (a gradient) rather than evaluated by the dispatcher (an oracle, which makes 0 [0]). */
    private readonly compiled = false,
  ) {}

  private at(offset: number): Loc {
    return { ...this.loc, col: this.loc.col + offset };
  }

  private refuse(offset: number, message: string, hint?: string): ValueType {
    this.errors.push(new SpecError(this.at(offset), message, hint));
    return UNKNOWN;
  }

  /** The formula's value must be `want` (a tensor, or a list of them). */
  result(f: Formula, v: ValueType, want: 'Tensor' | 'Tensor[]', of: string): void {
    if (v.t === 'unknown' || v.t === 'host') return;
    if (want === 'Tensor' && v.t === 'Tensor[]') {
      this.refuse(
        f.offset,
        `${this.what} gives ${describe(v, f)}, where ${of} is one tensor`,
        selectHint(v, printFormula(f)),
      );
    } else if (want === 'Tensor' && !isTensorType(v.t)) {
      this.refuse(
        f.offset,
        `${this.what} gives ${describe(v, f)}, where ${of} is a tensor`,
        'a number becomes a tensor through an op, e.g. multiply(dy, 0) for zeros shaped like dy',
      );
    } else if (want === 'Tensor[]' && v.t !== 'Tensor[]') {
      this.refuse(f.offset, `${this.what} gives ${describe(v, f)}, where ${of} is a list of tensors (Tensor[])`);
    }
  }

  type(f: Formula): ValueType {
    switch (f.kind) {
      case 'num':
        return { t: f.int ? 'int' : 'float', literal: true };
      case 'bool':
        return { t: 'bool', literal: true };
      case 'null':
        return { t: 'null', literal: true };
      case 'ref':
        return this.env.get(f.name) ?? UNKNOWN; // an unreadable name was reported when the model was built
      case 'list':
        return this.list(f);
      case 'item':
        return this.item(f);
      case 'call':
        return this.call(f);
    }
  }

  private list(f: Extract<Formula, { kind: 'list' }>): ValueType {
    const items = f.items.map((x) => this.type(x));
    if (items.some((v) => v.t === 'unknown' || v.t === 'host')) return UNKNOWN;
    if (!items.length) return { t: 'list', literal: true };
    if (items.every((v) => v.t === 'int')) return { t: 'int[]', literal: true };
    if (items.every((v) => v.t === 'int' || v.t === 'float')) return { t: 'float[]', literal: true };
    if (items.every((v) => v.t === 'Tensor')) return { t: 'Tensor[]', outputs: null, desc: 'a list of tensors' };
    const bad = f.items.find((_, i) => !['int', 'float', 'Tensor'].includes(items[i]!.t)) ?? f.items[0]!;
    return this.refuse(
      bad.offset,
      `${this.what}: a list holds numbers or tensors, one kind throughout; this item is ${describe(this.type(bad), bad)}`,
    );
  }

  private item(f: Extract<Formula, { kind: 'item' }>): ValueType {
    const of = this.type(f.of);
    if (of.t === 'unknown' || of.t === 'host') return UNKNOWN;
    const src = printFormula(f.of);
    const sel = typeof f.key === 'number' ? `[${f.key}]` : `.${f.key}`;
    if (of.t !== 'Tensor[]')
      return this.refuse(
        f.offset,
        `${this.what} selects ${sel} of ${describe(of, f.of)}, which is not a list of tensors`,
        'outputs are selected from a tuple op: its result, or its y and dy in its own gradient',
      );
    if (typeof f.key === 'number') {
      if (of.outputs && f.key >= of.outputs.length)
        return this.refuse(
          f.offset,
          `${this.what} selects ${src}[${f.key}], but ${src} has ${of.outputs.length} outputs (${of.outputs.join(', ')})`,
          `use an index below ${of.outputs.length}`,
        );
      return TENSOR;
    }
    if (!of.outputs)
      return this.refuse(
        f.offset,
        `${this.what} selects ${src}.${f.key}, but the outputs of ${src} have no names`,
        `select by index: ${src}[0]`,
      );
    if (!of.outputs.includes(f.key))
      return this.refuse(
        f.offset,
        `${this.what} selects ${src}.${f.key}, which is not an output (outputs: ${of.outputs.join(', ')})`,
        didYouMean(f.key, of.outputs),
      );
    return TENSOR;
  }

  private call(f: Extract<Formula, { kind: 'call' }>): ValueType {
    const args = f.args.map((a) => this.type(a));
    const kwargs = f.kwargs.map((k) => this.type(k.value));
    const operator = scalarOperator(f.op);
    // Arithmetic on numbers alone stays a number (rendered as JavaScript arithmetic, evaluated as such).
    if (operator && !f.kwargs.length && args.length && args.every((v) => v.t === 'int' || v.t === 'float')) {
      return { t: args.every((v) => v.t === 'int') && f.op !== 'divide' ? 'int' : 'float', literal: true };
    }
    const op = this.ops.get(f.op);
    if (!op) return UNKNOWN; // reported when the model was built
    const result: ValueType = op.out.tuple
      ? tupleValue(op, `the outputs of ${f.op}`)
      : op.out.shape.kind === 'host'
        ? { t: 'host' }
        : TENSOR;
    const params = op.args;
    const signature = `${op.name}(${params.map((p) => p.name).join(', ')}) in ${op.file}`;
    const bound = new Map<string, { value: ValueType; formula: Formula; keyword: boolean; position: number }>();
    if (f.args.length > params.length) {
      this.arity(f, op);
      return result;
    }
    f.args.forEach((a, i) => bound.set(params[i]!.name, { value: args[i]!, formula: a, keyword: false, position: i }));
    let ok = true;
    f.kwargs.forEach((k, i) => {
      const p = params.find((x) => x.name === k.name);
      if (!p) {
        ok = false;
        this.refuse(
          k.offset,
          `${this.what}: ${op.name} has no arg '${k.name}'`,
          didYouMean(
            k.name,
            params.map((x) => x.name),
          ) ?? `its args: ${signature}`,
        );
      } else if (bound.has(k.name)) {
        ok = false;
        this.refuse(
          k.offset,
          `${this.what}: ${op.name}'s '${k.name}' is given twice (argument ${bound.get(k.name)!.position + 1} is '${k.name}' too)`,
          'give it once',
        );
      } else bound.set(k.name, { value: kwargs[i]!, formula: k.value, keyword: true, position: params.indexOf(p) });
    });
    if (!ok) return result;
    const missing = params.filter((p) => !p.default && !bound.has(p.name));
    if (missing.length) {
      if (!f.kwargs.length) this.arity(f, op);
      else
        this.refuse(
          f.offset,
          `${this.what}: ${op.name} needs ${missing.map((p) => `'${p.name}'`).join(', ')}, which this call does not give`,
          `its args: ${signature}`,
        );
      return result;
    }
    for (const p of params) {
      const b = bound.get(p.name);
      if (b) this.argument(f, op, p, b.value, b.formula, b.keyword, b.position, signature);
    }
    return result;
  }

  private arity(f: Extract<Formula, { kind: 'call' }>, op: OpModel): void {
    const required = op.args.filter((a) => !a.default).length;
    const n = required === op.args.length ? `${required}` : `${required} to ${op.args.length}`;
    const got = f.args.length + f.kwargs.length;
    const missing = op.args.slice(f.args.length).filter((a) => !a.default);
    this.refuse(
      f.offset,
      `${this.what}: ${op.name} takes ${n} argument${n === '1' ? '' : 's'} (${op.args.map((a) => a.name).join(', ')}), got ${got}`,
      missing.length
        ? `${op.name} (${op.file}) requires ${missing.map((a) => `'${a.name}'`).join(', ')}, which this call does not give; pass ${missing.map((a) => `${a.name}=...`).join(', ')}`
        : `${op.name}'s args are declared in ${op.file}; remove the extra argument${got - op.args.length > 1 ? 's' : ''}`,
    );
  }

  /** One bound argument against its parameter. */
  private argument(
    f: Extract<Formula, { kind: 'call' }>,
    op: OpModel,
    p: ArgModel,
    v: ValueType,
    arg: Formula,
    keyword: boolean,
    position: number,
    signature: string,
  ): void {
    if (v.t === 'unknown' || v.t === 'host') return;
    const symbol = scalarOperator(f.op);
    const slot = symbol
      ? `an operand of '${symbol}'`
      : keyword
        ? `'${p.name}' of ${op.name}`
        : `argument ${position + 1} of ${op.name}`;
    const src = printFormula(arg);
    const want = p.type;
    // An arg passed by position to a callee that has an arg of that name elsewhere: the signature shifted under the
    // call (an arg inserted before it), or the call swaps them on purpose, which a keyword argument says.
    const elsewhere = op.args.findIndex((q) => q.name === v.name);
    if (!keyword && !symbol && arg.kind === 'ref' && !isTensorType(v.t) && elsewhere >= 0 && op.args[elsewhere] !== p) {
      this.refuse(
        arg.offset,
        `${this.what} passes '${v.name}' as argument ${position + 1} of ${op.name}, which is its '${p.name}' (${p.type}); its '${v.name}' is argument ${elsewhere + 1}`,
        `${signature}; if ${op.name}'s args changed, pass by name: ${v.name}=${v.name}; if '${p.name}' is meant, say so: ${p.name}=${v.name}`,
      );
      return;
    }
    if (isTensorType(want)) {
      if (want === 'Tensor[]') {
        if (v.t !== 'Tensor[]')
          this.refuse(arg.offset, `${this.what} passes ${describe(v, arg)} as ${slot}, whose '${p.name}' is Tensor[]`);
        return;
      }
      if (v.t === 'Tensor' || v.t === 'Tensor?') return;
      if (v.t === 'Tensor[]') {
        this.refuse(arg.offset, `${this.what} uses ${describe(v, arg)} as one tensor (${slot})`, selectHint(v, src));
        return;
      }
      if (v.t === 'null' && want === 'Tensor?') return;
      const like = p.checks.find((c) => c.kind === 'like');
      if ((base(v.t) === 'int' || base(v.t) === 'float') && !v.t.endsWith('?')) {
        if (like && like.kind === 'like')
          this.refuse(
            arg.offset,
            `${this.what} passes ${describe(v, arg)} as ${slot}, whose '${p.name}' is a tensor shaped like '${like.of}' (check like(${like.of})); a number has no shape`,
            `pass a tensor there (${op.name}: ${signature})`,
          );
        else {
          // A tensor whose rank another arg indexes (axis(x)) or whose shape another must have (like(x)).
          const ranked = op.args.find((q) =>
            q.checks.some((c) => (c.kind === 'axis' || c.kind === 'axes' || c.kind === 'like') && c.of === p.name),
          );
          const c = ranked?.checks.find((x) => 'of' in x && x.of === p.name);
          if (ranked && c && c.kind !== 'one_of' && c.kind !== 'range')
            this.refuse(
              arg.offset,
              `${this.what} passes ${describe(v, arg)} as ${slot}, whose '${p.name}' is a tensor that '${ranked.name}' is checked against (${c.kind}(${p.name})); a number has no axes`,
              `pass a tensor there (${op.name}: ${signature})`,
            );
        }
        return;
      }
      this.refuse(
        arg.offset,
        `${this.what} passes ${describe(v, arg)} as ${slot}, whose '${p.name}' is ${want}`,
        `pass a tensor there (${signature})`,
      );
      return;
    }
    // A non-tensor parameter.
    if (isTensorType(v.t)) {
      this.refuse(
        arg.offset,
        `${this.what} passes a tensor as ${slot}, whose '${p.name}' is ${want}`,
        `pass a ${want} arg of the op (or a number) there`,
      );
      return;
    }
    if (v.t === 'null') {
      if (!want.endsWith('?'))
        this.refuse(
          arg.offset,
          `${this.what} passes null as ${slot}, whose '${p.name}' is ${want} (not optional)`,
          `pass a ${want}`,
        );
      return;
    }
    const have = base(v.t);
    const goal = base(want);
    const fits = (() => {
      if (have === goal) return true;
      if (v.t === 'list') return goal.includes('[]');
      switch (goal) {
        case 'float':
          return have === 'int' && (v.literal || keyword);
        case 'int|int[]':
          return have === 'int' || have === 'int[]';
        case 'int[]':
          return have === 'int' && !this.compiled;
        case 'float[]':
          return have === 'int[]';
        default:
          return false;
      }
    })();
    if (!fits) {
      const named = describe(v, arg);
      const shifted = !keyword && v.name && op.args.some((q) => q.name === v.name && q !== p);
      this.refuse(
        arg.offset,
        `${this.what} passes ${named} as ${slot}, whose '${p.name}' is ${want}`,
        shifted
          ? `${signature}: argument ${position + 1} is '${p.name}' now; pass by name: ${v.name}=${src}`
          : goal === 'float' && have === 'int'
            ? `an int arg passed positionally to a float one is refused (it is how a shifted signature shows); if meant, pass it by name: ${p.name}=${src}`
            : goal === 'bool'
              ? `write true or false`
              : goal === 'int[]' && have === 'int'
                ? `a gradient passes a list: [${src}]`
                : `${op.name}: ${signature}`,
      );
      return;
    }
  }
}

/** A value for messages: `'dy' (a list of 2 tensors, ...)`, `0.5 (a float)`, `a tensor`. */
function describe(v: ValueType, f: Formula): string {
  const src = printFormula(f);
  switch (v.t) {
    case 'Tensor[]':
      return v.desc && f.kind !== 'list'
        ? `${f.kind === 'ref' ? `'${src}'` : src} (a list of ${outputsText(v)}: ${v.desc})`
        : `${src} (a list of tensors)`;
    case 'Tensor':
      return f.kind === 'ref' ? `'${src}' (a tensor)` : 'a tensor';
    case 'null':
      return 'null';
    case 'list':
      return 'an empty list';
    default:
      return v.name
        ? `'${v.name}' (${v.t})`
        : `${src} (${v.t === 'int' || v.t === 'float' ? `a number, ${v.t}` : v.t})`;
  }
}

/**
 * The oracle formula the generated tests evaluate: outputs selected by name (`topk(x, 2).values`) become indices
 * (the runtime knows positions only); any other formula is kept as written.
 */
export function oracleSource(src: string, ops: ReadonlyMap<string, OpModel> | readonly OpModel[]): string {
  let f: Formula;
  try {
    f = parseFormulaCached(src);
  } catch {
    return src;
  }
  const byName = Array.isArray(ops)
    ? new Map(ops.map((o: OpModel) => [o.name, o]))
    : (ops as ReadonlyMap<string, OpModel>);
  let changed = false;
  const visit = (x: Formula): Formula => {
    switch (x.kind) {
      case 'item': {
        const of = visit(x.of);
        if (typeof x.key === 'string' && of.kind === 'call') {
          const index = byName.get(of.op)?.out.outputs?.indexOf(x.key) ?? -1;
          if (index >= 0) {
            changed = true;
            return { ...x, of, key: index };
          }
        }
        return { ...x, of };
      }
      case 'call':
        return { ...x, args: x.args.map(visit), kwargs: x.kwargs.map((k) => ({ ...k, value: visit(k.value) })) };
      case 'list':
        return { ...x, items: x.items.map(visit) };
      default:
        return x;
    }
  };
  const out = visit(f);
  return changed ? printFormula(out) : src;
}

/**
 * When `f` calls `callee` with names only (`softmax_dx(y, dy, axis=axis)`), which name each of the callee's args
 * gets (its own name → the name passed); null otherwise. A backward op called so is tested as the VJP of the caller.
 */
export function namesPassed(f: Formula, callee: OpModel): Record<string, string> | null {
  if (f.kind !== 'call' || f.op !== callee.name) return null;
  if (![...f.args, ...f.kwargs.map((k) => k.value)].every((a) => a.kind === 'ref')) return null;
  const mapping: Record<string, string> = {};
  f.args.forEach((a, i) => {
    const p = callee.args[i];
    if (p) mapping[p.name] = (a as { name: string }).name;
  });
  for (const k of f.kwargs) mapping[k.name] = (k.value as { name: string }).name;
  return mapping;
}
