// Semantic checks on the built model: what the JSON Schema cannot say and the emitters would otherwise
// turn into broken code or silence (a default outside its own check, a test shape the op cannot take,
// a formula handing a tensor to an int arg, an input left without a gradient, ...).

import { DTYPES } from '../../../runtime/src/dtype.ts';
import { didYouMean, SpecError, type Loc } from './errors.ts';
import { checkFormulas } from './formula-types.ts';
import { checkFusion } from './fusion-check.ts';
import type { Path, RawSpec } from './load.ts';
import type { ArgModel, ArgShape, Check, OpModel } from './model.ts';
import { checkTargets } from './targets.ts';
import { REFERENCES } from '../testing/numpy-reference.ts';

/** Every check below, over the ops built from valid specs; `specs` gives each op's raw spec for locations. */
export function checkSemantics(ops: readonly OpModel[], specs: ReadonlyMap<string, RawSpec>): SpecError[] {
  const errors: SpecError[] = [];
  const byName = new Map(ops.map((o) => [o.name, o]));
  for (const op of ops) {
    const raw = op.derivedFrom === null ? specs.get(op.name) : undefined;
    if (!raw) continue;
    const at = (path: Path, key = false) => raw.locate(path, key);
    // Args are checked where they are declared; an op reusing a schema would repeat its owner's errors.
    if (op.schema === op.name) checkArgs(op, at, errors);
    checkGrad(op, at, byName, errors);
    checkTests(op, at, byName, errors);
    // Every formula against the schemas of the ops it calls (spec/formula-types.ts).
    checkFormulas(op, at, byName, errors);
    // Names that are not plain names are refused there; the rest against the targets' schemas (spec/targets.ts).
    const beforeTargets = errors.length;
    if (checkForeign(op, at, errors)) checkTargets(op, at, errors);
    // A mapping refused above is the one error: its non-finite case would only repeat it.
    if (errors.length === beforeTargets) checkNonFinite(op, at, errors);
    // The declared fusion pattern against what the op computes (spec/fusion-check.ts).
    checkFusion(op, at, errors);
    checkRecognize(op, at, byName, errors);
    checkIntegers(op, at, errors);
  }
  return errors;
}

type At = (path: Path, key?: boolean) => Loc;

/** Every op a `recognize:` role names must exist: the pass would otherwise never match it, silently. */
function checkRecognize(op: OpModel, at: At, byName: ReadonlyMap<string, OpModel>, errors: SpecError[]): void {
  for (const [role, names] of Object.entries(op.recognize ?? {}))
    names.forEach((name, i) => {
      if (!byName.has(name))
        errors.push(
          new SpecError(
            at(['recognize', role, i]),
            `recognize.${role} names '${name}', which no spec defines`,
            didYouMean(name, byName.keys()) ?? 'name an op defined in specs/',
          ),
        );
    });
}

const isTensorType = (t: string) => t.startsWith('Tensor');
const IDENT = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Does a value fit an arg's type (null fits an optional one)? */
export function fitsType(type: string, v: unknown): boolean {
  if (v === null) return type.endsWith('?');
  const base = type.replace('?', '');
  switch (base) {
    case 'int':
      return Number.isInteger(v);
    case 'float':
      return typeof v === 'number' && Number.isFinite(v);
    case 'bool':
      return typeof v === 'boolean';
    case 'int[]':
      return Array.isArray(v) && v.every(Number.isInteger);
    case 'int|int[]':
      return Number.isInteger(v) || (Array.isArray(v) && v.every(Number.isInteger));
    case 'float[]':
      return Array.isArray(v) && v.every((x) => typeof x === 'number' && Number.isFinite(x));
    case 'string':
      return typeof v === 'string';
    case 'dtype':
      return typeof v === 'string' && (DTYPES as readonly string[]).includes(v);
    default:
      return false;
  }
}

/** Why a value breaks one of an arg's value checks (positive, nonneg, one_of, range), or undefined. */
function violates(c: Check, v: unknown): string | undefined {
  if (v === null || v === undefined) return undefined;
  const nums = typeof v === 'number' ? [v] : Array.isArray(v) && v.every((x) => typeof x === 'number') ? v : [];
  switch (c.kind) {
    case 'positive': {
      const bad = nums.find((x) => !(x > 0));
      return bad === undefined ? undefined : `${bad} is not positive`;
    }
    case 'nonneg': {
      const bad = nums.find((x) => !(x >= 0));
      return bad === undefined ? undefined : `${bad} is negative`;
    }
    case 'range': {
      const bad = nums.find((x) => !(x >= c.lo && x <= c.hi));
      return bad === undefined ? undefined : `${bad} is outside range(${c.lo}, ${c.hi})`;
    }
    case 'one_of':
      return c.values.includes(v as string | number)
        ? undefined
        : `${JSON.stringify(v)} is not one of ${c.values.join(', ')}`;
    default:
      return undefined;
  }
}

function checkArgs(op: OpModel, at: At, errors: SpecError[]): void {
  for (const a of op.args) {
    const path = ['args', a.name];
    if (a.type.startsWith('dtype') && a.default && a.default.value !== null && !fitsType(a.type, a.default.value)) {
      const got = String(a.default.value);
      errors.push(
        new SpecError(
          at([...path, 'default']),
          `default '${got}' of '${a.name}' is not a dtype`,
          [didYouMean(got, DTYPES), `one of: ${DTYPES.join(', ')}`].filter(Boolean).join('; '),
        ),
      );
    }
    for (const c of a.checks) {
      if (c.kind === 'values') {
        if (a.type !== 'Tensor')
          errors.push(
            new SpecError(
              at([...path, 'check']),
              `check 'values' reads a tensor's values, but '${a.name}' is ${a.type}`,
            ),
          );
        else if (op.out.shape.kind !== 'custom')
          errors.push(
            new SpecError(
              at([...path, 'check']),
              `check 'values' hands '${a.name}''s values to a custom output rule, but out is ${op.out.shape.kind}`,
              'write out: custom(fn) and read them in its second parameter',
            ),
          );
        continue;
      }
      if (isTensorType(a.type) && c.kind !== 'like') {
        errors.push(
          new SpecError(
            at([...path, 'check']),
            `check '${c.kind}' tests a number, but '${a.name}' is a ${a.type}`,
            c.kind === 'axis' || c.kind === 'axes'
              ? `put ${c.kind}(${a.name}) on the int arg that indexes '${a.name}'`
              : `a tensor's values are not checked at call time; remove the check, or put it on a number arg`,
          ),
        );
        continue;
      }
      if (c.kind === 'like' && !isTensorType(a.type)) {
        errors.push(
          new SpecError(at([...path, 'check']), `check like(${c.of}) compares tensors, but '${a.name}' is ${a.type}`),
        );
        continue;
      }
      if (a.type.startsWith('string') || a.type.startsWith('bool') || a.type.startsWith('dtype')) {
        if (c.kind === 'positive' || c.kind === 'nonneg' || c.kind === 'range')
          errors.push(
            new SpecError(at([...path, 'check']), `check '${c.kind}' tests a number, but '${a.name}' is ${a.type}`),
          );
      }
      const why = a.default ? violates(c, a.default.value) : undefined;
      if (why)
        errors.push(
          new SpecError(
            at([...path, 'default']),
            `default of '${a.name}' fails its own check: ${why}`,
            'change the default or the check',
          ),
        );
    }
  }
}

function checkGrad(op: OpModel, at: At, ops: ReadonlyMap<string, OpModel>, errors: SpecError[]): void {
  const g = op.grad;
  if (g.kind !== 'formulas') return;
  const tensors = op.args.filter((a) => isTensorType(a.type));
  const given = new Set(g.inputs.map((i) => i.name));
  for (const t of tensors) {
    if (given.has(t.name)) continue;
    // An input drawn as an integer or bool (indices, a condition) has no gradient; a float one does.
    const dtype = op.tests.inputs[t.name]?.dtype;
    if (dtype === 'int32' || dtype === 'int64' || dtype === 'bool') continue;
    errors.push(
      new SpecError(
        at(['grad'], true),
        `'${t.name}' is a differentiable input of ${op.name} but grad gives it no formula (it would silently get no gradient)`,
        `add '${t.name}: <formula>' under grad, or, if it takes integer or bool values, say so with tests.inputs.${t.name}.dtype: int32 (or bool)`,
      ),
    );
  }
}

function checkTests(op: OpModel, at: At, ops: ReadonlyMap<string, OpModel>, errors: SpecError[]): void {
  const t = op.tests;
  const attrs = op.args.filter((a) => !isTensorType(a.type));
  const attrNames = attrs.map((a) => a.name);
  // Grid values must fit their arg's type.
  for (const [k, values] of Object.entries(t.grid)) {
    const a = attrs.find((x) => x.name === k);
    if (!a) continue;
    if (!values.length)
      errors.push(
        new SpecError(
          at(['tests', 'grid', k]),
          `test grid for '${k}' is empty, so the op would get no test case`,
          `give '${k}' at least one value, or remove it from the grid`,
        ),
      );
    values.forEach((v, i) => {
      if (!fitsType(a.type, v))
        errors.push(
          new SpecError(
            at(['tests', 'grid', k, i]),
            `test grid value ${JSON.stringify(v)} does not fit '${k}', which is ${a.type}`,
          ),
        );
      else
        for (const c of a.checks) {
          const why = violates(c, v);
          if (why)
            errors.push(
              new SpecError(
                at(['tests', 'grid', k, i]),
                `test grid value of '${k}' fails its check: ${why}`,
                'a call that must fail belongs under tests.errors',
              ),
            );
        }
    });
  }
  if (!t.shapes.length)
    errors.push(
      new SpecError(
        at(['tests', 'shapes']),
        'tests.shapes is empty, so the op would get no test case',
        'give at least one shape',
      ),
    );
  // Arg names in explicit cases and expected errors.
  const named = (list: readonly { args?: Readonly<Record<string, unknown>> }[], field: 'cases' | 'errors') =>
    list.forEach((c, i) => {
      for (const [k, v] of Object.entries(c.args ?? {})) {
        const a = attrs.find((x) => x.name === k);
        if (!a) {
          errors.push(
            new SpecError(
              at(['tests', field, i, 'args', k], true),
              `tests.${field}[${i}] names '${k}', which is not a non-tensor arg of ${op.name}`,
              didYouMean(k, attrNames) ?? `non-tensor args: ${attrNames.join(', ') || 'none'}`,
            ),
          );
        } else if (field === 'cases' && !fitsType(a.type, v)) {
          errors.push(
            new SpecError(
              at(['tests', field, i, 'args', k]),
              `tests.cases[${i}] gives '${k}' ${JSON.stringify(v)}, which does not fit ${a.type}`,
            ),
          );
        }
      }
    });
  named(t.cases, 'cases');
  named(t.errors, 'errors');
  // Every generated case must be a call the op accepts: axes in range, like() shapes equal, operands that broadcast.
  const defaults = Object.fromEntries(attrs.filter((a) => a.default).map((a) => [a.name, a.default!.value]));
  const gridKeys = Object.keys(t.grid).filter((k) => attrNames.includes(k));
  const combos: Record<string, unknown>[] = [{}];
  for (const k of gridKeys) {
    const next: Record<string, unknown>[] = [];
    for (const c of combos) for (const v of t.grid[k]!) next.push({ ...c, [k]: v });
    combos.splice(0, combos.length, ...next);
  }
  // The test emitter drops the grid combinations a shape cannot take; a shape no combination fits gives no case.
  t.shapes.forEach((shapes, i) => {
    const whys = combos.map((combo) => shapeProblem(op, shapes, { ...defaults, ...combo }));
    if (whys.length && whys.every(Boolean))
      errors.push(
        new SpecError(
          at(['tests', 'shapes', i]),
          `test shapes ${JSON.stringify(shapes)} do not fit ${op.name}: ${whys[0]}`,
          'give shapes of the rank the op takes; a call that must fail belongs under tests.errors',
        ),
      );
  });
  t.cases.forEach((c, i) => {
    const why = shapeProblem(op, c.shapes, { ...defaults, ...c.args });
    if (why)
      errors.push(
        new SpecError(
          at(['tests', 'cases', i, 'shapes']),
          `tests.cases[${i}] does not fit ${op.name}: ${why}`,
          'a call that must fail belongs under tests.errors',
        ),
      );
  });
}

/** The shortest row of the generated NaN/±inf case (emit/tests.ts): what a declared arg set must fit. */
const NON_FINITE_ROW = 2;

/** The rank of the NaN/±inf case's rows: the lowest the op's test shapes give its first tensor (a global pool's 4). */
export function nonFiniteRank(op: OpModel): number {
  const ranks = op.tests.shapes
    .map((perArg) => perArg[0])
    .filter((s): s is readonly number[] => Array.isArray(s) && s.every((d) => typeof d === 'number'))
    .map((s) => s.length);
  return ranks.length ? Math.max(1, Math.min(...ranks)) : 1;
}

/**
 * A declared `tests.non_finite_cases` must reach the suite (the case needs an ONNX op with a NumPy reference, float32
 * among the dtypes and one tensor to feed) and each arg set must be a call the op accepts on those rows: values that
 * fit their arg's type and checks, axes within the rows' rank, integers exactly as written.
 */
function checkNonFinite(op: OpModel, at: At, errors: SpecError[]): void {
  const cases = op.tests.nonFiniteCases;
  if (!cases) return;
  const list = at(['tests', 'non_finite_cases'], true);
  const tensors = op.args.filter((a) => isTensorType(a.type));
  const attrs = op.args.filter((a) => !isTensorType(a.type));
  const unused = (why: string, hint: string) =>
    errors.push(new SpecError(list, `tests.non_finite_cases would run nothing: ${why}`, hint));
  if (!op.onnx)
    unused(
      `${op.name} has no onnx: mapping, whose op's NumPy semantics the CPU is checked against`,
      'map the op to ONNX (onnx: { op: ... }), or remove tests.non_finite_cases',
    );
  else if (!(op.onnx.op in REFERENCES))
    unused(
      `no NumPy reference of ONNX ${op.onnx.op} is written out (generators/src/testing/numpy-reference.ts)`,
      `add one for ${op.onnx.op} there, or remove tests.non_finite_cases; references: ${Object.keys(REFERENCES).join(', ')}`,
    );
  if (!op.tests.dtypes.includes('float32'))
    unused(
      `its rows are float32 and tests.dtypes [${op.tests.dtypes.join(', ')}] leaves float32 out`,
      'add float32 to tests.dtypes',
    );
  if (tensors.filter((a) => !a.type.endsWith('?')).length !== 1)
    unused(
      `the case feeds its rows to one tensor, and ${op.name} takes ${tensors.map((a) => a.name).join(', ') || 'none'}`,
      'remove tests.non_finite_cases',
    );
  const defaults = Object.fromEntries(attrs.filter((a) => a.default).map((a) => [a.name, a.default!.value]));
  const rank = nonFiniteRank(op);
  cases.forEach((c, i) => {
    if (c === null || typeof c !== 'object' || Array.isArray(c)) return; // the schema says: an object
    for (const [k, v] of Object.entries(c)) {
      const a = attrs.find((x) => x.name === k);
      if (!a) continue; // an unknown name is refused where the model is built
      const path: Path = ['tests', 'non_finite_cases', i, k];
      if (!fitsType(a.type, v)) {
        errors.push(
          new SpecError(
            at(path),
            `tests.non_finite_cases[${i}] gives '${k}' ${JSON.stringify(v)}, which does not fit ${a.type}`,
            `give '${k}' a value of type ${a.type}, as a call of ${op.name} takes it`,
          ),
        );
        continue;
      }
      const unsafe = (Array.isArray(v) ? v : [v]).find(
        (x) => typeof x === 'number' && Number.isInteger(x) && !Number.isSafeInteger(x),
      );
      if (a.type.startsWith('int') && unsafe !== undefined) {
        errors.push(
          new SpecError(
            at(path),
            `tests.non_finite_cases[${i}] value of '${k}' (${a.type}) is ${unsafe}, outside ${EXACT}`,
            `give '${k}' an integer within ±9007199254740991`,
          ),
        );
        continue;
      }
      for (const check of a.checks) {
        const why = violates(check, v);
        if (why)
          errors.push(
            new SpecError(
              at(path),
              `tests.non_finite_cases[${i}] value of '${k}' fails its check: ${why}`,
              'a call that must fail belongs under tests.errors',
            ),
          );
      }
    }
    const row = [...Array.from({ length: rank - 1 }, () => 1), NON_FINITE_ROW];
    const why = shapeProblem(op, [row], { ...defaults, ...c });
    if (why)
      errors.push(
        new SpecError(
          at(['tests', 'non_finite_cases', i]),
          `tests.non_finite_cases[${i}] does not fit ${op.name} on the case's ${rank === 1 ? '1-D rows' : `rows of shape [${row.slice(0, -1).join(', ')}, n]`}: ${why}`,
          'the rows are 1-D: an axis is 0 or -1 (or null where the op takes it)',
        ),
      );
  });
}

function shapeProblem(op: OpModel, shapes: readonly ArgShape[], attrs: Record<string, unknown>): string | undefined {
  const tensors = op.args.filter((a) => isTensorType(a.type));
  const shapeOf = new Map<string, readonly number[]>();
  tensors.forEach((a, i) => {
    const s = shapes[i];
    if (a.type !== 'Tensor[]' && Array.isArray(s) && s.every((d) => typeof d === 'number'))
      shapeOf.set(a.name, s as readonly number[]);
  });
  for (const a of op.args) {
    for (const c of a.checks) {
      if (c.kind === 'like') {
        const mine = shapeOf.get(a.name);
        const other = shapeOf.get(c.of);
        if (mine && other && mine.join() !== other.join())
          return `'${a.name}' must have the shape of '${c.of}' ([${other.join(', ')}]), got [${mine.join(', ')}]`;
        continue;
      }
      if (c.kind !== 'axis' && c.kind !== 'axes') continue;
      const x = shapeOf.get(c.of);
      const v = attrs[a.name];
      if (!x || v === null || v === undefined) continue;
      const list = typeof v === 'number' ? [v] : Array.isArray(v) ? (v as number[]) : [];
      const rank = x.length;
      const bad = list.find((ax) => typeof ax === 'number' && !(ax >= -Math.max(rank, 1) && ax < Math.max(rank, 1)));
      if (bad !== undefined) return `${a.name} ${bad} is out of range for '${c.of}' of rank ${rank}`;
    }
  }
  const rule = op.out.shape;
  if (rule.kind === 'broadcast') {
    const dims: number[] = [];
    for (const n of rule.of) {
      const s = shapeOf.get(n);
      if (!s) continue;
      for (let k = 1; k <= s.length; k++) {
        const d = s[s.length - k]!;
        const have = dims[k - 1];
        if (have === undefined || have === 1) dims[k - 1] = d;
        else if (d !== 1 && d !== have) return `'${n}' [${s.join(', ')}] does not broadcast with the other operands`;
      }
    }
  }
  if (rule.kind === 'matmul') {
    const a = shapeOf.get(rule.a);
    const b = shapeOf.get(rule.b);
    if (a && b) {
      if (a.length < 2 || b.length < 2)
        return `matmul operands need rank 2 or more, got [${a.join(', ')}] and [${b.join(', ')}]`;
      const ka = rule.mode[0] === 't' ? a[a.length - 2] : a[a.length - 1];
      const kb = rule.mode[1] === 't' ? b[b.length - 1] : b[b.length - 2];
      if (ka !== kb) return `inner dimensions differ: ${ka} and ${kb}`;
    }
  }
  return undefined;
}

/** The integers the runtime holds exactly: an int64 is stored as a JavaScript number, so within ±(2^53 − 1). */
const INT_RANGE: Readonly<Record<string, readonly [number, number]>> = {
  int8: [-128, 127],
  uint8: [0, 255],
  int16: [-32768, 32767],
  uint16: [0, 65535],
  int32: [-2147483648, 2147483647],
  uint32: [0, 4294967295],
  int64: [-Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER],
  uint64: [0, Number.MAX_SAFE_INTEGER],
};
const EXACT = 'the integers the runtime holds exactly, ±(2^53 − 1) = ±9007199254740991';

/**
 * Integers exactly as written: int args' defaults, grid values and cases within the range the runtime stores exactly
 * (a YAML integer beyond it is refused by the loader, which sees its text; `1e20` reads as a float that is integral),
 * and every integer tensor's test domain within its dtype's range (an int8 input drawn from [0, 300] would wrap).
 */
function checkIntegers(op: OpModel, at: At, errors: SpecError[]): void {
  const inexact = (v: unknown): number | undefined => {
    const list = Array.isArray(v) ? v : [v];
    // A fraction (0.5) is a type error, reported as such; here only integral values beyond the exact range.
    return list.find((x): x is number => typeof x === 'number' && Number.isInteger(x) && !Number.isSafeInteger(x));
  };
  for (const a of op.args) {
    if (isTensorType(a.type) || !a.type.startsWith('int')) continue;
    const bad = (v: unknown, path: Path, what: string) => {
      const x = inexact(v);
      if (x !== undefined)
        errors.push(
          new SpecError(
            at(path),
            `${what} of '${a.name}' (${a.type}) is ${x}, outside ${EXACT}`,
            `give '${a.name}' an integer within ±9007199254740991`,
          ),
        );
    };
    if (op.schema === op.name && a.default) bad(a.default.value, ['args', a.name, 'default'], 'default');
    (op.tests.grid[a.name] ?? []).forEach((v, i) => bad(v, ['tests', 'grid', a.name, i], 'test grid value'));
    op.tests.cases.forEach((c, i) => {
      if (a.name in c.args) bad(c.args[a.name], ['tests', 'cases', i, 'args', a.name], `tests.cases[${i}] value`);
    });
  }
  const t = op.tests;
  for (const a of op.args) {
    if (!isTensorType(a.type)) continue;
    const own = t.inputs[a.name];
    // A domain shared by several dtypes is drawn in each and wraps in the narrow ones on purpose (the bitwise ops'
    // [-300, 300] reaches every bit of int8 and uint8 and beyond them in int32); a domain for one integer dtype (the
    // input's own, or the only one tested) must fit it.
    const dtypes = own?.dtype ? [own.dtype] : t.dtypes.length === 1 ? t.dtypes : [];
    const domain = own?.domain ?? t.domain;
    for (const d of dtypes) {
      const range = INT_RANGE[d];
      if (!range) continue;
      const [lo, hi] = domain;
      if (lo >= range[0] && hi <= range[1]) continue;
      const path: Path = own?.domain ? ['tests', 'inputs', a.name, 'domain'] : ['tests', 'domain'];
      errors.push(
        new SpecError(
          at(path),
          `test domain [${lo}, ${hi}] of '${a.name}' does not fit ${d}, whose values are ${range[0]} to ${range[1]}${d.endsWith('64') ? ` (${EXACT})` : ''}`,
          own?.domain || !own?.dtype
            ? `narrow the domain to within [${range[0]}, ${range[1]}], or test '${a.name}' in a wider dtype`
            : `give tests.inputs.${a.name}.domain within [${range[0]}, ${range[1]}]`,
        ),
      );
      break;
    }
  }
}

/** Relay and ONNX names end up in generated code and in lookups by name: they must be plain names. */
function checkForeign(op: OpModel, at: At, errors: SpecError[]): boolean {
  const before = errors.length;
  if (op.relay && !/^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$/.test(op.relay.op)) {
    errors.push(
      new SpecError(
        at(['relay', 'op']),
        op.relay.op.trim() === ''
          ? 'relay op is empty'
          : `relay op ${JSON.stringify(op.relay.op)} is not a Relay op name`,
        'write the Relay op as Relay prints it, e.g. nn.softmax, or remove relay:',
      ),
    );
  }
  if (op.onnx && !IDENT.test(op.onnx.op)) {
    errors.push(
      new SpecError(
        at(['onnx', 'op']),
        op.onnx.op.trim() === '' ? 'onnx op is empty' : `onnx op ${JSON.stringify(op.onnx.op)} is not an ONNX op type`,
        'write the ONNX op type, e.g. Softmax, or remove onnx:',
      ),
    );
  }
  const keys: [Path, Record<string, unknown>][] = [];
  if (op.relay) keys.push([['relay', 'attrs'], op.relay.attrs], [['relay', 'defaults'], op.relay.defaults]);
  if (op.onnx)
    keys.push(
      [['onnx', 'attrs'], op.onnx.attrs],
      [['onnx', 'consts'], op.onnx.consts],
      [['onnx', 'defaults'], op.onnx.defaults],
    );
  for (const [path, obj] of keys)
    for (const k of Object.keys(obj))
      if (!IDENT.test(k))
        errors.push(new SpecError(at([...path, k], true), `attribute name ${JSON.stringify(k)} is not an identifier`));
  return errors.length === before;
}

export type { ArgModel };
