// Validation and model building: raw specs in, an immutable Model (or every error found) out.

import { basename, dirname } from 'node:path/posix';
import type { ArgType, OnnxConversion } from '../../../runtime/src/vocab.ts';
import { diff } from '../expr/diff.ts';
import { binary, variable } from '../expr/ast.ts';
import { parseExpr, ExprError, freeVars, printExpr } from '../expr/parse.ts';
import { didYouMean, SpecError, type Loc } from './errors.ts';
import { FORMULA_NEGATE, FORMULA_OPERATORS, FormulaError, formulaRefs, parseFormula } from './formula.ts';
import type { Path, RawSpec } from './load.ts';
import type {
  ArgModel,
  Check,
  DialectModel,
  GradModel,
  Model,
  OnnxFormModel,
  OpModel,
  OutModel,
  ShapeRule,
  TestModel,
} from './model.ts';
import { checkStructure } from './structure.ts';
import { checkIdentifiers } from './identifiers.ts';
import { checkSemantics } from './semantic.ts';

/* eslint-disable @typescript-eslint/no-explicit-any */
type Raw = Record<string, any>;

export function buildModel(raws: readonly RawSpec[]): { model: Model; errors: SpecError[] } {
  const errors: SpecError[] = [];
  const valid: RawSpec[] = [];
  for (const raw of raws) {
    const e = checkStructure(raw);
    errors.push(...e);
    if (!e.length) valid.push(raw);
  }
  // Pass 1: names and schemas, so pass 2 can resolve references in any order.
  const byName = new Map<string, RawSpec>();
  valid.sort((a, b) => (a.file < b.file ? -1 : 1));
  for (const raw of valid) {
    const data = raw.data as Raw;
    const prev = byName.get(data.op);
    if (prev) {
      errors.push(
        new SpecError(
          raw.locate(['op']),
          `duplicate op '${data.op}'`,
          `already defined in ${prev.file}; rename one of them`,
        ),
      );
      continue;
    }
    if (basename(raw.file, '.yaml') !== data.op) {
      errors.push(
        new SpecError(
          raw.locate(['op']),
          `op '${data.op}' is in ${basename(raw.file)}`,
          `name the file ${data.op}.yaml`,
        ),
      );
    }
    byName.set(data.op, raw);
  }
  const argsOf = new Map<string, ArgModel[]>();
  for (const [name, raw] of byName) {
    const data = raw.data as Raw;
    if (data.schema === undefined) argsOf.set(name, buildArgs(raw, errors));
  }
  const schemaOf = (name: string): { args: ArgModel[]; schema: string } | undefined => {
    const raw = byName.get(name);
    if (!raw) return undefined;
    const data = raw.data as Raw;
    if (data.schema === undefined) return { args: argsOf.get(name)!, schema: name };
    return undefined;
  };
  const ops: OpModel[] = [];
  for (const raw of byName.values()) {
    const before = errors.length;
    const op = buildOp(raw, schemaOf, byName, errors);
    if (op && errors.length === before) {
      ops.push(op);
      if (op.grad.kind === 'derived') ops.push(...synthesizeBackward(op, byName, errors));
    }
  }
  ops.sort((a, b) => (a.name < b.name ? -1 : 1));
  errors.push(...checkSemantics(ops, byName));
  // Names that become identifiers in generated code must not collide (spec/identifiers.ts).
  errors.push(...checkIdentifiers(ops));
  return { model: { ops }, errors };
}

function buildArgs(raw: RawSpec, errors: SpecError[]): ArgModel[] {
  const data = raw.data as Raw;
  const out: ArgModel[] = [];
  let firstOptional: string | undefined;
  const args = (data.args ?? {}) as Record<string, Raw>;
  for (const [name, a] of Object.entries(args)) {
    const path = ['args', name];
    const type = a.type as ArgType;
    const hasDefault = 'default' in a;
    if (hasDefault) firstOptional ??= name;
    else if (firstOptional) {
      errors.push(
        new SpecError(
          raw.locate(path, true),
          `required arg '${name}' comes after optional arg '${firstOptional}'`,
          `move '${name}' before '${firstOptional}', or give it a default`,
        ),
      );
    }
    if (hasDefault) checkDefault(raw, path, type, a.default, errors);
    out.push({
      name,
      type,
      ...(hasDefault ? { default: { value: a.default } } : {}),
      checks: a.check === undefined ? [] : parseChecks(raw, [...path, 'check'], String(a.check), errors),
      ...(a.doc ? { doc: String(a.doc) } : {}),
      loc: raw.locate(path, true),
    });
  }
  const names = new Set(out.map((a) => a.name));
  for (const a of out) {
    for (const c of a.checks) {
      if (
        (c.kind === 'axis' || c.kind === 'axes' || c.kind === 'like' || c.kind === 'nonempty') &&
        !isTensorArg(out, c.of)
      ) {
        errors.push(
          new SpecError(
            raw.locate(['args', a.name, 'check']),
            `check ${c.kind}(${c.of}) names '${c.of}', which is not a tensor arg`,
            didYouMean(c.of, names),
          ),
        );
      }
      if (c.kind === 'axis' && !a.type.startsWith('int'))
        errors.push(
          new SpecError(raw.locate(['args', a.name, 'check']), `axis(...) checks an int arg, '${a.name}' is ${a.type}`),
        );
      if (c.kind === 'axis' && a.type.includes('[]'))
        errors.push(
          new SpecError(raw.locate(['args', a.name, 'check']), `'${a.name}' is a list`, `write axes(${c.of})`),
        );
    }
  }
  return out;
}

const isTensorArg = (args: readonly ArgModel[], name: string) =>
  args.some((a) => a.name === name && a.type.startsWith('Tensor'));

function checkDefault(raw: RawSpec, path: Path, type: ArgType, v: unknown, errors: SpecError[]): void {
  const at = raw.locate([...path, 'default']);
  const optional = type.endsWith('?');
  if (v === null) {
    if (!optional)
      errors.push(new SpecError(at, `default is null but type ${type} is not optional`, `write type: ${type}?`));
    return;
  }
  const base = type.replace('?', '');
  const ok =
    base === 'int'
      ? Number.isInteger(v)
      : base === 'float'
        ? typeof v === 'number'
        : base === 'bool'
          ? typeof v === 'boolean'
          : base === 'int[]'
            ? Array.isArray(v) && v.every(Number.isInteger)
            : base === 'int|int[]'
              ? Number.isInteger(v) || (Array.isArray(v) && v.every(Number.isInteger))
              : base === 'float[]'
                ? Array.isArray(v) && v.every((x) => typeof x === 'number')
                : base === 'string' || base === 'dtype'
                  ? typeof v === 'string'
                  : false;
  if (!ok) errors.push(new SpecError(at, `default ${JSON.stringify(v)} does not fit type ${type}`));
}

function parseChecks(raw: RawSpec, path: Path, src: string, errors: SpecError[]): Check[] {
  const checks: Check[] = [];
  for (const part of src.split(/\s+and\s+/)) {
    const m = /^(\w+)(?:\((.*)\))?$/.exec(part.trim());
    const args =
      m?.[2]
        ?.split(',')
        .map((s) => s.trim())
        .filter(Boolean) ?? [];
    const kind = m?.[1];
    if (kind === 'axis' || kind === 'axes' || kind === 'like' || kind === 'nonempty') {
      if (args.length === 1) checks.push({ kind, of: args[0]! });
      else
        errors.push(
          new SpecError(raw.locate(path), `${kind}(...) takes the tensor whose rank bounds it`, `write ${kind}(x)`),
        );
    } else if ((kind === 'nonneg' || kind === 'positive' || kind === 'values') && args.length === 0)
      checks.push({ kind });
    else if (kind === 'one_of' && args.length)
      checks.push({
        kind,
        values: args.map((s) => (/^-?\d+(\.\d+)?$/.test(s) ? Number(s) : s.replace(/^['"]|['"]$/g, ''))),
      });
    else if (kind === 'range' && args.length === 2 && args.every((s) => !Number.isNaN(Number(s))))
      checks.push({ kind, lo: Number(args[0]), hi: Number(args[1]) });
    else
      errors.push(
        new SpecError(
          raw.locate(path),
          `unknown check '${part.trim()}'`,
          'checks are axis(x), axes(x), like(x), nonempty(x), nonneg, positive, one_of(a, b), range(lo, hi), values (a tensor whose values the rule reads), joined with "and"',
        ),
      );
  }
  return checks;
}

function buildOp(
  raw: RawSpec,
  schemaOf: (name: string) => { args: ArgModel[]; schema: string } | undefined,
  specs: ReadonlyMap<string, RawSpec>,
  errors: SpecError[],
): OpModel | undefined {
  const data = raw.data as Raw;
  const name: string = data.op;
  let args: ArgModel[];
  let schema = name;
  if (data.schema !== undefined) {
    if (data.args !== undefined)
      errors.push(
        new SpecError(
          raw.locate(['args'], true),
          `'args' and 'schema' both given`,
          `remove 'args' to reuse ${data.schema}'s schema`,
        ),
      );
    const reused = schemaOf(data.schema);
    if (!reused) {
      const hint = specs.has(data.schema)
        ? `'${data.schema}' itself reuses a schema; name that one`
        : didYouMean(data.schema, specs.keys());
      errors.push(new SpecError(raw.locate(['schema']), `schema '${data.schema}' is not defined by any spec`, hint));
      return undefined;
    }
    args = reused.args;
    schema = reused.schema;
  } else {
    args = schemaOf(name)?.args ?? [];
  }
  const argNames = args.map((a) => a.name);
  const tensors = args.filter((a) => a.type.startsWith('Tensor')).map((a) => a.name);
  const attrs = args.filter((a) => !a.type.startsWith('Tensor'));
  const refArg = (path: Path, n: string, what: string, want?: 'tensor' | 'attr'): boolean => {
    const ok =
      want === 'tensor'
        ? tensors.includes(n)
        : want === 'attr'
          ? attrs.some((a) => a.name === n)
          : argNames.includes(n);
    if (!ok)
      errors.push(
        new SpecError(
          raw.locate(path),
          `${what} names '${n}', which is not ${want === 'tensor' ? 'a tensor arg' : want === 'attr' ? 'a non-tensor arg' : 'an arg'} of ${name}`,
          didYouMean(n, want === 'tensor' ? tensors : argNames) ?? `args: ${argNames.join(', ')}`,
        ),
      );
    return ok;
  };

  const out = buildOut(
    raw,
    data.out,
    refArg,
    tensors,
    args.filter((a) => a.type === 'Tensor[]').map((a) => a.name),
    errors,
  );
  const compute = buildCompute(raw, data.compute, tensors, attrs, errors);
  // A compute that failed to parse already has its error; don't add a 'no grad' one on top.
  const grad = buildGrad(
    raw,
    data,
    name,
    tensors,
    attrs.map((a) => a.name),
    data.compute !== undefined,
    specs,
    schemaOf,
    errors,
  );
  const dataArgs = data.cast?.data_args;
  const cast = data.cast
    ? {
        rule: data.cast.rule,
        dataArgs:
          typeof dataArgs === 'number'
            ? tensors.slice(0, dataArgs)
            : Array.isArray(dataArgs)
              ? dataArgs.filter((n: string, i: number) => refArg(['cast', 'data_args', i], n, 'cast rule', 'tensor'))
              : tensors,
      }
    : null;
  if (typeof dataArgs === 'number' && dataArgs > tensors.length) {
    errors.push(
      new SpecError(
        raw.locate(['cast', 'data_args']),
        `cast rule has ${dataArgs} data args but ${name} has ${tensors.length} tensor args`,
      ),
    );
  }
  const promote: OpModel['promote'] = data.promote ?? null;
  if (promote && !args.some((a) => a.type === 'Tensor' || a.type === 'Tensor?')) {
    errors.push(
      new SpecError(
        raw.locate(['promote']),
        `promote: ${promote} applies to Tensor args, and ${name} has none`,
        'remove the promote field',
      ),
    );
  }
  const relay = data.relay
    ? {
        op: data.relay.op,
        args: (data.relay.args ?? tensors).filter(
          (n: string, i: number) => !data.relay.args || refArg(['relay', 'args', i], n, 'relay arg'),
        ),
        attrs: mapAttrs(data.relay.attrs, ['relay', 'attrs'], 'relay attr', refArg),
        defaults: foreignDefaults(raw, data.relay, ['relay'], 'Relay', errors),
      }
    : null;
  const onnx = data.onnx
    ? {
        op: data.onnx.op,
        opset: data.onnx.opset ?? 17,
        since: data.onnx.since ?? 1,
        before: onnxForms(raw, data.onnx, refArg, errors),
        inputs: (data.onnx.inputs ?? tensors).filter(
          (n: string, i: number) => !data.onnx.inputs || refArg(['onnx', 'inputs', i], n, 'onnx input'),
        ),
        attrs: mapAttrs(data.onnx.attrs, ['onnx', 'attrs'], 'onnx attr', refArg),
        consts: (data.onnx.consts ?? {}) as Record<string, number>,
        defaults: foreignDefaults(raw, data.onnx, ['onnx'], 'ONNX', errors, data.onnx.inputs ?? []),
        accept: (data.onnx.accept ?? {}) as Record<string, unknown>,
        flatten:
          data.onnx.flatten !== undefined && refArg(['onnx', 'flatten'], data.onnx.flatten, 'onnx flatten', 'attr')
            ? (data.onnx.flatten as string)
            : null,
        convert: Object.fromEntries(
          Object.entries((data.onnx.convert ?? {}) as Record<string, OnnxConversion>).filter(([k]) =>
            refArg(['onnx', 'convert', k], k, 'onnx convert', 'attr'),
          ),
        ),
      }
    : null;
  const dialects: DialectModel[] = Object.entries((data.dialects ?? { cpu: 10 }) as Record<string, number>).map(
    ([d, level]) => ({
      name: d as DialectModel['name'],
      level,
      kernel: compute ? 'generated' : 'hand',
    }),
  );
  const tests = buildTests(
    raw,
    data.tests ?? {},
    tensors,
    attrs,
    errors,
    args.filter((a) => a.type === 'Tensor[]').map((a) => a.name),
    args.filter((a) => a.type === 'Tensor?').map((a) => a.name),
  );
  if (typeof tests.oracle === 'string') checkOracle(raw, tests.oracle, argNames, specs, errors, ['tests', 'oracle']);
  else if (tests.oracle) {
    // One formula per named output of a tuple op.
    const names = out.outputs ?? [];
    const perOutput = tests.oracle;
    for (const [k, src] of Object.entries(perOutput)) {
      if (!names.includes(k))
        errors.push(
          new SpecError(
            raw.locate(['tests', 'oracle', k], true),
            names.length
              ? `tests.oracle gives a formula for '${k}', which is not an output of ${name}`
              : `tests.oracle per output needs named outputs`,
            names.length
              ? (didYouMean(k, names) ?? `outputs: ${names.join(', ')}`)
              : 'write out: { tuple: custom(fn), outputs: [a, b] }, or one formula for the whole result',
          ),
        );
      checkOracle(raw, String(src), argNames, specs, errors, ['tests', 'oracle', k]);
    }
    const missing = names.filter((n) => !(n in perOutput));
    if (names.length && missing.length)
      errors.push(
        new SpecError(
          raw.locate(['tests', 'oracle']),
          `tests.oracle has no formula for output${missing.length > 1 ? 's' : ''} ${missing.map((n) => `'${n}'`).join(', ')}`,
          `give one formula per output (${names.join(', ')})`,
        ),
      );
  }
  const category = basename(dirname(raw.file));
  return {
    name,
    doc: String(data.doc).trim(),
    category,
    file: raw.file,
    schema,
    args,
    out,
    compute,
    grad,
    fusion: data.fusion ?? (compute ? (tensors.length > 1 ? 'broadcast' : 'elemwise') : 'opaque'),
    recognize: data.recognize ?? null,
    cast,
    promote,
    relay,
    onnx,
    dialects,
    tests,
    derivedFrom: null,
    loc: raw.locate(['op']),
  };
}

/** A foreign default is only meaningful for an attribute the mapping renames onto one of our args. */
function foreignDefaults(
  raw: RawSpec,
  spec: Raw,
  path: Path,
  what: string,
  errors: SpecError[],
  inputs: readonly string[] = [],
): Record<string, unknown> {
  // ONNX inputs that carry an arg of ours (Clip's min) take a default under that arg's name.
  const mapped = [...Object.keys((spec.attrs ?? {}) as Record<string, string>), ...inputs];
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries((spec.defaults ?? {}) as Record<string, unknown>)) {
    if (mapped.includes(k)) out[k] = v;
    else
      errors.push(
        new SpecError(
          raw.locate([...path, 'defaults', k]),
          `${what} default '${k}' is not a mapped attr`,
          didYouMean(k, mapped) ?? `mapped attrs: ${mapped.join(', ') || 'none'}`,
        ),
      );
  }
  return out;
}

/** `onnx.before: { 13: { inputs: [x], attrs: { axes: axis } } }`: the spellings of opsets below each key. */
function onnxForms(
  raw: RawSpec,
  onnx: Raw,
  refArg: (path: Path, n: string, what: string) => boolean,
  errors: SpecError[],
): OnnxFormModel[] {
  const since = (onnx.since ?? 1) as number;
  const opset = (onnx.opset ?? 17) as number;
  return Object.entries((onnx.before ?? {}) as Record<string, Raw>)
    .map(([key, form]) => {
      const path: Path = ['onnx', 'before', key];
      const until = Number(key);
      if (!Number.isInteger(until) || until <= since || until > opset)
        errors.push(
          new SpecError(
            raw.locate(path),
            `onnx.before key '${key}' must be an opset above since (${since}) and at most opset (${opset})`,
          ),
        );
      const inputs = form.inputs
        ? (form.inputs as string[]).filter((n, i) => refArg([...path, 'inputs', i], n, 'onnx input'))
        : null;
      const attrs = form.attrs ? mapAttrs(form.attrs, [...path, 'attrs'], 'onnx attr', refArg) : null;
      const mapped = Object.keys({ ...(onnx.attrs ?? {}), ...(form.attrs ?? {}) });
      const defaults: Record<string, unknown> = {};
      for (const [k, v] of Object.entries((form.defaults ?? {}) as Record<string, unknown>)) {
        if (mapped.includes(k)) defaults[k] = v;
        else
          errors.push(
            new SpecError(
              raw.locate([...path, 'defaults', k]),
              `ONNX default '${k}' is not a mapped attr`,
              `mapped attrs: ${mapped.join(', ') || 'none'}`,
            ),
          );
      }
      return { until, inputs, attrs, defaults };
    })
    .sort((a, b) => b.until - a.until);
}

function mapAttrs(
  attrs: Record<string, string> | undefined,
  path: Path,
  what: string,
  refArg: (path: Path, n: string, what: string) => boolean,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(attrs ?? {})) if (refArg([...path, k], v, `${what} '${k}'`)) out[k] = v;
  return out;
}

const SHAPE_RULES =
  'same(x), broadcast(a, b), reduce(x, axis, keepdims), matmul(a, b[, nt|tn|tt]), concat(xs, axis), custom(fn_name) or host';

function buildOut(
  raw: RawSpec,
  spec: unknown,
  refArg: (path: Path, n: string, what: string, want?: 'tensor' | 'attr') => boolean,
  tensors: string[],
  listArgs: readonly string[],
  errors: SpecError[],
): OutModel {
  // `{ tuple: custom(fn) }` declares several outputs; only a hand-written rule can say how many and of what type.
  const tuple = typeof spec === 'object' && spec !== null && 'tuple' in spec;
  const path: Path = typeof spec === 'object' && spec ? ['out', tuple ? 'tuple' : 'shape'] : ['out'];
  const src =
    typeof spec === 'string'
      ? spec
      : typeof spec === 'object' && spec
        ? String((spec as Raw)[tuple ? 'tuple' : 'shape'])
        : `same(${tensors[0] ?? 'x'})`;
  const dtype = typeof spec === 'object' && spec ? ((spec as Raw).dtype ?? null) : null;
  const m = /^(\w+)(?:\((.*)\))?$/.exec(src.trim());
  const kind = m?.[1];
  const params =
    m?.[2]
      ?.split(',')
      .map((s) => s.trim())
      .filter(Boolean) ?? [];
  const bad = (hint = `write one of: ${SHAPE_RULES}`) => {
    errors.push(new SpecError(raw.locate(path), `output rule '${src}' is not understood`, hint));
    return { shape: { kind: 'host' }, dtype, tuple: false, outputs: null } as OutModel;
  };
  if (tuple && kind !== 'custom')
    return bad(
      'a tuple output needs a hand-written rule: write out: { tuple: custom(fn_name), outputs: [values, indices] }, the rule returning one TensorType per output',
    );
  const outputs = tuple ? outputNames(raw, (spec as Raw).outputs, errors) : null;
  if (!tuple && typeof spec === 'object' && spec !== null && 'outputs' in spec)
    errors.push(
      new SpecError(
        raw.locate(['out', 'outputs'], true),
        'outputs names the elements of a tuple output',
        'write out: { tuple: custom(fn_name), outputs: [...] }',
      ),
    );
  let shape: ShapeRule;
  switch (kind) {
    case 'same':
      if (params.length !== 1) return bad('write same(x) with one tensor arg');
      refArg(path, params[0]!, 'output rule', 'tensor');
      shape = { kind: 'same', of: params[0]! };
      break;
    case 'broadcast':
      if (params.length < 1) return bad();
      params.forEach((p) => refArg(path, p, 'output rule', 'tensor'));
      shape = { kind: 'broadcast', of: params };
      break;
    case 'reduce':
      if (params.length < 2 || params.length > 3) return bad('write reduce(x, axis, keepdims)');
      refArg(path, params[0]!, 'output rule', 'tensor');
      refArg(path, params[1]!, 'output rule', 'attr');
      if (params[2]) refArg(path, params[2], 'output rule', 'attr');
      shape = { kind: 'reduce', x: params[0]!, axis: params[1]!, keepdims: params[2] ?? null };
      break;
    case 'matmul': {
      const mode = params[2] ?? 'nn';
      if (params.length < 2 || params.length > 3 || !['nn', 'nt', 'tn', 'tt'].includes(mode))
        return bad('write matmul(a, b) or matmul(a, b, nt|tn|tt)');
      params.slice(0, 2).forEach((p) => refArg(path, p, 'output rule', 'tensor'));
      shape = { kind: 'matmul', a: params[0]!, b: params[1]!, mode: mode as 'nn' | 'nt' | 'tn' | 'tt' };
      break;
    }
    case 'concat':
      if (params.length !== 2) return bad('write concat(xs, axis), xs a Tensor[] arg and axis an int arg');
      if (refArg(path, params[0]!, 'output rule', 'tensor') && !listArgs.includes(params[0]!))
        return bad(`concat(...) joins a Tensor[] arg; '${params[0]}' is a single tensor`);
      refArg(path, params[1]!, 'output rule', 'attr');
      shape = { kind: 'concat', xs: params[0]!, axis: params[1]! };
      break;
    case 'custom':
      if (params.length !== 1 || !/^[a-z]\w*$/.test(params[0]!))
        return bad('write custom(fn_name); the function is hand-written in runtime/src/ops/');
      shape = { kind: 'custom', fn: params[0]! };
      break;
    case 'host':
      if (m?.[2] !== undefined) return bad('write host, without parentheses');
      shape = { kind: 'host' };
      break;
    default:
      return bad();
  }
  return { shape, dtype, tuple, outputs };
}

/** `outputs: [values, indices]`: a fixed number of named outputs (absent: as many as the rule returns, as split's). */
function outputNames(raw: RawSpec, names: unknown, errors: SpecError[]): readonly string[] | null {
  if (names === undefined) return null;
  const list = names as string[];
  if (list.length < 2)
    errors.push(
      new SpecError(
        raw.locate(['out', 'outputs']),
        `a tuple output has at least two outputs, got ${list.length}`,
        'write out: same(x) (or another rule) for one output',
      ),
    );
  list.forEach((n, i) => {
    if (list.indexOf(n) !== i)
      errors.push(new SpecError(raw.locate(['out', 'outputs', i]), `output '${n}' is named twice`));
  });
  return list;
}

function buildCompute(
  raw: RawSpec,
  src: unknown,
  tensors: string[],
  attrs: ArgModel[],
  errors: SpecError[],
): OpModel['compute'] {
  if (src === undefined) return null;
  const text = String(src);
  try {
    const expr = parseExpr(text);
    const allowed = [...tensors, ...attrs.filter((a) => a.type === 'float' || a.type === 'int').map((a) => a.name)];
    for (const v of freeVars(expr)) {
      if (!allowed.includes(v)) {
        errors.push(
          new SpecError(
            raw.locate(['compute']),
            `compute reads '${v}', which is not a tensor or number arg`,
            didYouMean(v, allowed) ?? `args usable here: ${allowed.join(', ')}`,
          ),
        );
      }
    }
    return { source: text, expr };
  } catch (e) {
    if (!(e instanceof ExprError)) throw e;
    const loc = raw.locate(['compute']);
    errors.push(new SpecError({ ...loc, col: loc.col + e.offset }, `compute: ${e.message}`));
    return null;
  }
}

function buildGrad(
  raw: RawSpec,
  data: Raw,
  name: string,
  tensors: string[],
  attrNames: string[],
  hasCompute: boolean,
  specs: ReadonlyMap<string, RawSpec>,
  schemaOf: (name: string) => { args: ArgModel[] } | undefined,
  errors: SpecError[],
): GradModel {
  const g = data.grad;
  if (g === 'none') return { kind: 'none' };
  if (g === undefined || g === 'derived') {
    if (hasCompute) return { kind: 'derived', saves: tensors, dxOp: `${name}_dx`, inputs: tensors };
    if (g === 'derived') errors.push(new SpecError(raw.locate(['grad']), 'grad: derived needs a compute expression'));
    else if (tensors.length)
      errors.push(
        new SpecError(
          raw.locate(['op']),
          `op '${name}' has tensor args but no grad`,
          "write grad: none, grad: custom, or per-input formulas such as 'x: dy * y'",
        ),
      );
    return { kind: 'none' };
  }
  if (g === 'custom') return { kind: 'custom', saves: tensors, inputs: tensors };
  const saves: string[] = g.saves ?? [];
  saves.forEach((s, i) => {
    if (s !== 'y' && !tensors.includes(s)) {
      errors.push(
        new SpecError(
          raw.locate(['grad', 'saves', i]),
          `grad saves '${s}', which is neither a tensor arg nor y (the output)`,
          didYouMean(s, [...tensors, 'y']),
        ),
      );
    }
  });
  const entries = Object.entries(g as Raw).filter(([k]) => k !== 'saves' && k !== 'custom');
  if (g.custom) {
    if (entries.length)
      errors.push(
        new SpecError(
          raw.locate(['grad', 'custom'], true),
          'grad is custom but also gives formulas',
          'keep one of them',
        ),
      );
    return { kind: 'custom', saves, inputs: tensors };
  }
  const readable = new Set([...saves, 'dy', ...attrNames]);
  const inputs: { name: string; formula: ReturnType<typeof parseFormula>; source: string }[] = [];
  for (const [input, src] of entries) {
    const path = ['grad', input];
    if (!tensors.includes(input)) {
      errors.push(
        new SpecError(
          raw.locate(path, true),
          `grad gives a formula for '${input}', which is not a tensor arg of ${name}`,
          didYouMean(input, tensors) ?? `tensor args: ${tensors.join(', ')}`,
        ),
      );
      continue;
    }
    const loc = raw.locate(path);
    const at = (offset: number): Loc => ({ ...loc, col: loc.col + offset });
    try {
      const formula = parseFormula(String(src));
      const { refs, calls } = formulaRefs(formula);
      for (const r of refs) {
        if (r.kind === 'ref' && !readable.has(r.name)) {
          const fix =
            tensors.includes(r.name) || r.name === 'y' ? `add '${r.name}' to grad.saves` : didYouMean(r.name, readable);
          errors.push(
            new SpecError(
              at(r.offset),
              `formula for '${input}' reads '${r.name}', which the backward does not keep`,
              fix,
            ),
          );
        }
      }
      for (const c of calls) {
        if (c.kind !== 'call') continue;
        const builtin = (Object.values(FORMULA_OPERATORS) as string[]).includes(c.op) || c.op === FORMULA_NEGATE;
        if (!specs.has(c.op)) {
          errors.push(
            new SpecError(
              at(c.offset),
              builtin
                ? `formula uses '${c.op}' (an operator), but no spec defines op '${c.op}'`
                : `backward op '${c.op}' is defined by no spec`,
              builtin
                ? undefined
                : // Never the op itself: its backward is what is missing (scaffold it first, or both together).
                  (didYouMean(
                    c.op,
                    [...specs.keys()].filter((k) => k !== name),
                  ) ??
                    `write its spec (npm run new -- ${c.op}); or scaffold ${name} with npm run new, which scaffolds ${c.op} with it; or write grad: custom`),
            ),
          );
          continue;
        }
        // Arity, keyword args and argument types are checked against the callee's schema in formula-types.ts.
      }
      inputs.push({ name: input, formula, source: String(src) });
    } catch (e) {
      if (!(e instanceof FormulaError)) throw e;
      errors.push(new SpecError(at(e.offset), `grad formula for '${input}': ${e.message}`));
    }
  }
  return { kind: 'formulas', saves, inputs };
}

function buildTests(
  raw: RawSpec,
  t: Raw,
  tensors: string[],
  attrs: ArgModel[],
  errors: SpecError[],
  listArgs: readonly string[] = [],
  optionalArgs: readonly string[] = [],
): TestModel {
  const isShape = (s: unknown) => Array.isArray(s) && s.every((d) => Number.isInteger(d) && d >= 0);
  // A Tensor[] arg takes a list of shapes, one per element; an optional tensor (Tensor?) takes null (left out).
  const fits = (s: unknown, k: number) =>
    listArgs.includes(tensors[k]!)
      ? Array.isArray(s) && s.length > 0 && s.every(isShape)
      : isShape(s) || (s === null && optionalArgs.includes(tensors[k]!));
  // Trailing optional tensors may be left off a case's shapes.
  const required = tensors.length - [...tensors].reverse().findIndex((n) => !optionalArgs.includes(n));
  const checkShapes = (perArg: unknown[], path: Path) => {
    if (perArg.length > tensors.length || perArg.length < Math.min(required, tensors.length)) {
      errors.push(
        new SpecError(
          raw.locate(path),
          `test case gives ${perArg.length} shapes for ${tensors.length} tensor args (${tensors.join(', ')})`,
        ),
      );
    } else if (!perArg.every(fits)) {
      errors.push(
        new SpecError(
          raw.locate(path),
          `shapes are lists of non-negative integers${listArgs.length ? `; a Tensor[] arg (${listArgs.join(', ')}) takes a list of them` : ''}`,
        ),
      );
    }
  };
  // Without `shapes:` one case of [3, 4] per tensor arg, and two of them for a Tensor[] arg.
  const defaultShapes = [tensors.map((n) => (listArgs.includes(n) ? Array.from({ length: 2 }, () => [3, 4]) : [3, 4]))];
  const shapes = ((t.shapes as unknown[][] | undefined) ?? defaultShapes).map((entry, i) => {
    const perArg = Array.isArray(entry[0]) ? (entry as number[][]) : tensors.map(() => entry as number[]);
    checkShapes(perArg, ['tests', 'shapes', i]);
    return perArg;
  });
  ((t.cases ?? []) as Raw[]).forEach((c, i) => checkShapes(c.shapes ?? [], ['tests', 'cases', i, 'shapes']));
  const grid = (t.grid ?? {}) as Record<string, unknown[]>;
  for (const k of Object.keys(grid)) {
    if (!attrs.some((a) => a.name === k)) {
      errors.push(
        new SpecError(
          raw.locate(['tests', 'grid', k], true),
          `test grid names '${k}', which is not a non-tensor arg`,
          didYouMean(
            k,
            attrs.map((a) => a.name),
          ),
        ),
      );
    }
  }
  const model: TestModel = {
    shapes,
    grid,
    dtypes: t.dtypes ?? ['float32', 'float64'],
    domain: (t.domain ?? [-2, 2]) as [number, number],
    errors: t.errors ?? [],
    inputs: (t.inputs ?? {}) as TestModel['inputs'],
    cases: (t.cases ?? []) as TestModel['cases'],
    oracle:
      t.oracle === undefined
        ? null
        : typeof t.oracle === 'object' && t.oracle !== null
          ? (t.oracle as Record<string, string>)
          : String(t.oracle),
    reference: t.reference === true,
    nonFinite: t.non_finite === true,
    nonFiniteCases: t.non_finite_cases === undefined ? null : (t.non_finite_cases as Record<string, unknown>[]),
  };
  ((t.non_finite_cases ?? []) as Record<string, unknown>[]).forEach((c, i) => {
    for (const k of Object.keys(c ?? {}))
      if (!attrs.some((a) => a.name === k))
        errors.push(
          new SpecError(
            raw.locate(['tests', 'non_finite_cases', i, k], true),
            `tests.non_finite_cases names '${k}', which is not a non-tensor arg`,
            didYouMean(
              k,
              attrs.map((a) => a.name),
            ),
          ),
        );
  });
  for (const k of Object.keys(t.inputs ?? {})) {
    if (!tensors.includes(k))
      errors.push(
        new SpecError(
          raw.locate(['tests', 'inputs', k], true),
          `tests.inputs names '${k}', which is not a tensor arg`,
          didYouMean(k, tensors),
        ),
      );
  }
  return model;
}

/** `tests.oracle` reads only the op's args and calls only ops that have specs. */
function checkOracle(
  raw: RawSpec,
  src: string,
  argNames: readonly string[],
  specs: ReadonlyMap<string, RawSpec>,
  errors: SpecError[],
  path: Path,
): void {
  const loc = raw.locate(path);
  try {
    const { refs, calls } = formulaRefs(parseFormula(src));
    for (const r of refs)
      if (r.kind === 'ref' && !argNames.includes(r.name))
        errors.push(
          new SpecError(
            { ...loc, col: loc.col + r.offset },
            `oracle reads '${r.name}', which is not an arg`,
            didYouMean(r.name, argNames),
          ),
        );
    for (const c of calls)
      if (c.kind === 'call' && !specs.has(c.op))
        errors.push(
          new SpecError(
            { ...loc, col: loc.col + c.offset },
            `oracle calls '${c.op}', which no spec defines`,
            didYouMean(c.op, specs.keys()),
          ),
        );
  } catch (e) {
    if (!(e instanceof FormulaError)) throw e;
    errors.push(new SpecError({ ...loc, col: loc.col + e.offset }, `oracle: ${e.message}`));
  }
}

/** A `compute` op's backward: one synthesized op per tensor input whose compute is dy * d(compute)/d(input). */
function synthesizeBackward(op: OpModel, specs: ReadonlyMap<string, RawSpec>, errors: SpecError[]): OpModel[] {
  if (op.grad.kind !== 'derived' || !op.compute) return [];
  const tensors = op.args.filter((a) => a.type.startsWith('Tensor'));
  if (tensors.length !== 1) {
    errors.push(
      new SpecError(
        op.loc,
        `a derived gradient needs exactly one tensor arg, ${op.name} has ${tensors.length}`,
        'give per-input formulas under grad:',
      ),
    );
    return [];
  }
  const x = tensors[0]!.name;
  if (specs.has(op.grad.dxOp)) {
    errors.push(
      new SpecError(
        op.loc,
        `${op.name}'s derived gradient would define '${op.grad.dxOp}', which a spec already defines`,
        `write grad: { saves: [${x}], ${x}: ${op.grad.dxOp}(${x}, dy) } to use it`,
      ),
    );
    return [];
  }
  const derivative = diff(op.compute.expr, x);
  const expr = binary('*', variable('dy'), derivative);
  const dy: ArgModel = { name: 'dy', type: 'Tensor', checks: [], loc: op.loc };
  const attrs = op.args.filter((a) => !a.type.startsWith('Tensor'));
  return [
    {
      ...op,
      name: op.grad.dxOp,
      doc: `Gradient of ${op.name} with respect to ${x}, derived from its compute expression.`,
      schema: op.grad.dxOp,
      args: [tensors[0]!, dy, ...attrs],
      out: { shape: { kind: 'same', of: x }, dtype: null, tuple: false, outputs: null },
      compute: { source: printExpr(expr), expr },
      grad: { kind: 'none' },
      fusion: 'broadcast',
      recognize: null,
      cast: op.cast ? { rule: op.cast.rule, dataArgs: [x, 'dy'] } : null,
      promote: null,
      relay: null,
      onnx: null,
      // A backward op is checked against float64 central differences, so only float dtypes apply.
      tests: {
        ...op.tests,
        shapes: op.tests.shapes.map((s) => [s[0]!, s[0]!]),
        dtypes: op.tests.dtypes.filter((d) => d.startsWith('float')),
        errors: [],
        cases: [],
        oracle: null,
      },
      derivedFrom: op.name,
    },
  ];
}
