// A spec's `onnx:` and `relay:` mappings checked against the targets' own op definitions: ONNX's operator schemas
// for every opset (generators/data/onnx-schemas.json) and TVM's Relay op registry (generators/data/relay-ops.json),
// both derived from the targets' sources by scripts/target-schemas/*.mjs. A mapping that names an op, attribute,
// input or opset the target does not have is refused where it is written, with the nearest real name.
//
// Also here: which args a mapping carries (`carriedArgs`), so that the generated FromRelay / FromOnnx cases run only
// over what the mapping can express.

import { createRequire } from 'node:module';
import { didYouMean, SpecError, type Loc } from './errors.ts';
import type { Path } from './load.ts';
import type { ArgModel, OpModel } from './model.ts';

interface OnnxParam {
  readonly name: string;
  readonly optional?: boolean;
  readonly variadic?: boolean;
}
interface OnnxAttr {
  readonly type: string;
  readonly default?: unknown;
  readonly required?: boolean;
}
interface OnnxVersion {
  readonly since: number;
  /** Absent on a deprecated version, which ONNX documents without a signature (GroupNormalization-18). */
  readonly inputs?: readonly OnnxParam[];
  readonly attrs?: Readonly<Record<string, OnnxAttr>>;
  readonly deprecated?: boolean;
}
interface OnnxTable {
  readonly source: { readonly describe: string; readonly commit: string };
  readonly latestOpset: number;
  readonly ops: Readonly<Record<string, readonly OnnxVersion[]>>;
}
interface RelayField {
  readonly type: string;
  readonly default?: unknown;
}
interface RelayOp {
  readonly numInputs: number;
  readonly args: readonly string[];
  readonly attrs: Readonly<Record<string, RelayField>> | null;
}
interface RelayTable {
  readonly source: { readonly describe: string; readonly commit: string };
  readonly ops: Readonly<Record<string, RelayOp>>;
}

const require = createRequire(import.meta.url);
let onnxTable: OnnxTable | undefined;
let relayTable: RelayTable | undefined;
const onnx = () => (onnxTable ??= require('../../data/onnx-schemas.json') as OnnxTable);
const relay = () => (relayTable ??= require('../../data/relay-ops.json') as RelayTable);

/**
 * What the tables lack but the runtime really has, each with the reason it is allowed. Relay ops here are not in
 * TVM's C++ registry (Python-level or raf-op's own), attributes are spellings the Relay importer reads elsewhere.
 */
const RELAY_EXTRA_OPS: Readonly<Record<string, string>> = {
  logsumexp:
    "TVM's Python API op relay.logsumexp(data, axis, keepdims) (python/tvm/relay/op/reduce.py), which TVM expands into max/exp/sum/log rather than registering it",
};
/** Relay ops whose raf-op importer takes more arguments than TVM registers, each with the reason. */
const RELAY_EXTRA_ARGS: Readonly<Record<string, { readonly args: number; readonly reason: string }>> = {
  'nn.dense': {
    args: 3,
    reason:
      "TVM's nn.dense(data, weight) has no bias; raf-op's importer gives dense's b zeros and takes a third argument as the bias (runtime/src/relay.ts)",
  },
};
const RELAY_EXTRA_ATTRS: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  'nn.pad': {
    pad_value: "Relay passes the pad value as nn.pad's second argument (pad_val); the importer reads it there",
  },
};

type At = (path: Path, key?: boolean) => Loc;

/** Our arg types each target attribute type takes (a single int stands for a one-element list). */
const ONNX_ATTR_TAKES: Readonly<Record<string, readonly string[]>> = {
  int: ['int', 'int?', 'bool', 'dtype', 'dtype?'],
  ints: ['int[]', 'int[]?', 'int|int[]', 'int', 'int?'],
  float: ['float', 'float?'],
  floats: ['float[]'],
  string: ['string', 'string?'],
  strings: [],
  tensor: [],
};

function relayTakes(cpp: string): readonly string[] | null {
  const t = cpp.replace(/^Optional<(.*)>$/, '$1').replace(/^tvm::/, '');
  if (/^(Integer|int|int64_t|int32_t|IndexExpr|PrimExpr)$/.test(t)) return ['int', 'int?'];
  if (/^Array<(Integer|IndexExpr|PrimExpr|int)>$/.test(t)) return ['int[]', 'int[]?', 'int|int[]', 'int', 'int?'];
  if (/^Array<Array<(Integer|IndexExpr)>>$/.test(t)) return ['int[]', 'int[]?'];
  if (/^(double|float|FloatImm)$/.test(t)) return ['float', 'float?'];
  if (/^Array<(FloatImm|double|Float)>$/.test(t)) return ['float[]'];
  if (/^(bool|Bool)$/.test(t)) return ['bool'];
  if (/^DataType$/.test(t)) return ['dtype', 'dtype?'];
  if (/^(String|std::string)$/.test(t)) return ['string', 'string?'];
  return null;
}

/** A default as a comparable value: bools as 0/1, numbers rounded to what the target prints (ONNX: 5 digits). */
function sameDefault(a: unknown, b: unknown): boolean {
  const norm = (v: unknown): unknown => (typeof v === 'boolean' ? Number(v) : v);
  const x = norm(a);
  const y = norm(b);
  if (typeof x === 'number' && typeof y === 'number') return Math.abs(x - y) <= 1e-4 * Math.max(1, Math.abs(x));
  if (Array.isArray(x) && Array.isArray(y)) {
    // Relay's [0, 0] padding and our [0, 0, 0, 0] say the same: one value for every side.
    const uniform = (l: unknown[]) => l.length > 0 && l.every((v) => sameDefault(v, l[0]));
    if (x.length !== y.length && uniform(x) && uniform(y)) return sameDefault(x[0], y[0]);
    return x.length === y.length && x.every((v, i) => sameDefault(v, y[i]));
  }
  return x === y;
}

const show = (v: unknown) => JSON.stringify(v);

/** Every check of one op's mappings; `at` locates a path in its spec. */
/** The first opset at which ONNX (default domain) has `op`, or undefined when ONNX has no such op. */
export function onnxFirstOpset(op: string): number | undefined {
  return onnx().ops[op]?.[0]?.since;
}

export function checkTargets(op: OpModel, at: At, errors: SpecError[]): void {
  const found: SpecError[] = [];
  if (op.onnx) checkOnnx(op, at, found);
  if (op.relay) checkRelay(op, at, found);
  // A `before` form without its own inputs repeats the main form's findings: each once.
  const seen = new Set<string>();
  for (const e of found) {
    const key = String(e);
    if (!seen.has(key)) errors.push(e);
    seen.add(key);
  }
}

function argOf(op: OpModel, name: string): ArgModel | undefined {
  return op.args.find((a) => a.name === name);
}

function duplicates(list: readonly string[], path: Path, what: string, at: At, errors: SpecError[]): void {
  list.forEach((n, i) => {
    const first = list.indexOf(n);
    if (first < i)
      errors.push(
        new SpecError(
          at([...path, i]),
          `${what} names '${n}' twice (positions ${first + 1} and ${i + 1})`,
          "each position is one input of the target op: name each arg once, in the target's input order",
        ),
      );
  });
}

function checkOnnx(op: OpModel, at: At, errors: SpecError[]): void {
  const m = op.onnx!;
  const table = onnx();
  const source = `ONNX ${table.source.describe}`;
  const versions = table.ops[m.op];
  if (!versions) {
    errors.push(
      new SpecError(
        at(['onnx', 'op']),
        `ONNX has no op '${m.op}' (operator schemas of ${source}, every opset)`,
        didYouMean(m.op, Object.keys(table.ops)) ??
          'write an ONNX op type of the default domain as docs/Operators.md spells it (generators/data/onnx-schemas.json)',
      ),
    );
    return;
  }
  const first = versions[0]!.since;
  if (m.opset > table.latestOpset)
    errors.push(
      new SpecError(
        at(['onnx', 'opset']),
        `opset ${m.opset} is above the newest ONNX opset (${table.latestOpset}, ${source})`,
        `write opset: ${versions[versions.length - 1]!.since}, the last opset that changed ${m.op}`,
      ),
    );
  if (m.since > m.opset) {
    errors.push(
      new SpecError(
        at(['onnx', 'since']),
        `onnx since (${m.since}) is above the mapping's opset (${m.opset})`,
        `since is the first opset FromOnnx imports and opset the one inputs and attrs follow: since ≤ opset (${m.op} versions: ${versions.map((v) => v.since).join(', ')})`,
      ),
    );
    return;
  }
  if (m.since < first || m.opset < first) {
    const key = m.since < first ? 'since' : 'opset';
    errors.push(
      new SpecError(
        at(['onnx', key]),
        `ONNX's ${m.op} first appears at opset ${first}; ${key} ${key === 'since' ? m.since : m.opset} is before it`,
        `write ${key}: ${first} or later`,
      ),
    );
    return;
  }
  const inEffect = (opset: number) => [...versions].reverse().find((v) => v.since <= opset)!;
  /** The versions an opset range [lo, hi] spans. */
  const span = (lo: number, hi: number) =>
    versions.filter((v) => v === inEffect(lo) || (v.since > lo && v.since <= hi));
  const attrsOf = (v: OnnxVersion) => v.attrs ?? {};

  // The forms and the opsets each covers: the main one from the highest `before` key (or since) to opset.
  const forms: { path: Path; lo: number; hi: number; inputs: readonly string[]; attrs: Record<string, string> }[] = [];
  const untils = m.before.map((f) => f.until).sort((a, b) => b - a);
  forms.push({ path: ['onnx'], lo: untils[0] ?? m.since, hi: m.opset, inputs: m.inputs, attrs: { ...m.attrs } });
  m.before.forEach((f) => {
    const lower = untils.find((u) => u < f.until) ?? m.since;
    forms.push({
      path: ['onnx', 'before', String(f.until)],
      lo: lower,
      hi: f.until - 1,
      inputs: f.inputs ?? m.inputs,
      attrs: { ...(f.attrs ?? m.attrs) },
    });
  });

  for (const form of forms) {
    const inputsPath: Path =
      form.path.length === 1 || form.inputs !== m.inputs ? [...form.path, 'inputs'] : ['onnx', 'inputs'];
    duplicates(form.inputs, inputsPath, 'onnx inputs', at, errors);
    const reported = new Set<string>();
    // Each form spells the op as the last version it covers does (its inputs and attrs follow that signature); an
    // older node in its range simply lacks an attribute added since, and gets the default.
    const v = inEffect(Math.max(form.lo, form.hi));
    if (v.inputs && v.attrs) {
      const label = `${m.op}-${v.since}`;
      const variadic = v.inputs[v.inputs.length - 1]?.variadic === true;
      const max = variadic ? Infinity : v.inputs.length;
      if (form.inputs.length > max && !reported.has('inputs')) {
        reported.add('inputs');
        errors.push(
          new SpecError(
            at([...inputsPath, max]),
            `ONNX ${label} has ${max} input${max === 1 ? '' : 's'} (${v.inputs.map((p) => p.name).join(', ')}); '${form.inputs[max]}' would be input ${max + 1}`,
            Object.keys(v.attrs).length
              ? `map '${form.inputs[max]}' to one of ${label}'s attributes (${Object.keys(v.attrs).join(', ')}) under attrs, or drop it`
              : `${label} takes no more inputs: drop '${form.inputs[max]}'`,
          ),
        );
      }
      for (const [k, argName] of Object.entries(form.attrs)) {
        if (reported.has(`attr ${k}`)) continue;
        const keyPath: Path =
          form.path.length === 1 || (m.before.find((f) => String(f.until) === form.path[2])?.attrs ?? null) !== null
            ? [...form.path, 'attrs', k]
            : ['onnx', 'attrs', k];
        const a = v.attrs[k];
        if (!a) {
          reported.add(`attr ${k}`);
          errors.push(
            new SpecError(
              at(keyPath, true),
              `ONNX ${label} has no attribute '${k}'`,
              didYouMean(k, Object.keys(v.attrs)) ??
                (Object.keys(v.attrs).length
                  ? `${label}'s attributes: ${Object.keys(v.attrs).join(', ')}`
                  : `${label} has no attributes${v.inputs.length ? ` (inputs: ${v.inputs.map((p) => p.name).join(', ')})` : ''}`),
            ),
          );
          continue;
        }
        const arg = argOf(op, argName);
        if (arg && !reported.has(`type ${k}`)) {
          const takes = ONNX_ATTR_TAKES[a.type] ?? [];
          const converted = m.convert[argName] !== undefined;
          if (!converted && !takes.includes(arg.type)) {
            reported.add(`type ${k}`);
            errors.push(
              new SpecError(
                at(keyPath),
                `ONNX ${label}'s attribute '${k}' is ${a.type === 'int' ? 'an' : 'a'} ${a.type}, but '${argName}' is ${arg.type}`,
                takes.length
                  ? `map '${k}' from an arg of type ${takes.join(' or ')}`
                  : `an ONNX ${a.type} attribute needs a conversion: convert: { ${argName}: … } (runtime/src/vocab.ts ONNX_CONVERSIONS)`,
              ),
            );
          }
        }
        // The default ONNX assumes for an omitted attribute must be what the mapping says it is (`defaults:`) or ours.
        if (form.path.length === 1 && arg && 'default' in a && arg.default && !reported.has(`default ${k}`)) {
          const ours = k in m.defaults ? m.defaults[k] : arg.default.value;
          if (ours !== null && !sameDefault(a.default, ours)) {
            reported.add(`default ${k}`);
            errors.push(
              new SpecError(
                at(k in m.defaults ? ['onnx', 'defaults', k] : keyPath),
                `ONNX ${label} assumes ${k} = ${show(a.default)} when a node omits it, but the mapping says ${show(ours)}`,
                k in m.defaults
                  ? `write defaults: { ${k}: ${show(a.default)} }`
                  : `add defaults: { ${k}: ${show(a.default)} } to the onnx mapping (FromOnnx then fills it in)`,
              ),
            );
          }
        }
      }
    }
  }

  const atOpset = inEffect(m.opset);
  for (const k of Object.keys(m.consts))
    if (atOpset.attrs && !atOpset.attrs[k])
      errors.push(
        new SpecError(
          at(['onnx', 'consts', k], true),
          `ONNX ${m.op}-${atOpset.since} has no attribute '${k}'`,
          didYouMean(k, Object.keys(attrsOf(atOpset))) ??
            `attributes: ${Object.keys(attrsOf(atOpset)).join(', ') || 'none'}`,
        ),
      );
  // A node may come from any opset FromOnnx imports: an accepted attribute exists in some version from since on.
  const later = span(m.since, Infinity);
  const everAttrs = [...new Set(later.flatMap((v) => Object.keys(attrsOf(v))))];
  for (const k of Object.keys(m.accept))
    if (!everAttrs.includes(k) && later.every((v) => v.attrs))
      errors.push(
        new SpecError(
          at(['onnx', 'accept', k], true),
          `no version of ONNX ${m.op} from opset ${m.since} on has an attribute '${k}'`,
          didYouMean(k, everAttrs) ?? `attributes: ${everAttrs.join(', ') || 'none'}`,
        ),
      );
  const mainAttrArgs = new Set(Object.values(m.attrs));
  m.inputs.forEach((n, i) => {
    if (mainAttrArgs.has(n))
      errors.push(
        new SpecError(
          at(['onnx', 'inputs', i]),
          `'${n}' is carried twice: as ONNX input ${i + 1} and as attribute '${Object.keys(m.attrs).find((k) => m.attrs[k] === n)}'`,
          'an arg is either an ONNX input or an attribute at one opset: keep one (older spellings go under before:)',
        ),
      );
  });
  for (const [argName, conversion] of Object.entries(m.convert)) {
    if (conversion !== 'value_tensor') continue;
    const dtype = op.args.find((a) => a.name === 'dtype');
    if (!dtype || !dtype.type.startsWith('dtype'))
      errors.push(
        new SpecError(
          at(['onnx', 'convert', argName]),
          `convert: { ${argName}: value_tensor } makes a one-element tensor of the op's dtype arg, and ${op.name} has no dtype arg`,
          "add an arg `dtype: { type: dtype }` for the tensor's element type, or drop the conversion",
        ),
      );
  }
}

function checkRelay(op: OpModel, at: At, errors: SpecError[]): void {
  const m = op.relay!;
  const table = relay();
  const source = `TVM ${table.source.describe}`;
  const def = table.ops[m.op];
  if (!def) {
    if (RELAY_EXTRA_OPS[m.op] !== undefined) return;
    errors.push(
      new SpecError(
        at(['relay', 'op']),
        `Relay has no op '${m.op}' (op registry of ${source})`,
        didYouMean(m.op, Object.keys(table.ops)) ??
          'write a Relay op as RELAY_REGISTER_OP names it, e.g. nn.softmax (generators/data/relay-ops.json)',
      ),
    );
    return;
  }
  duplicates(m.args, ['relay', 'args'], 'relay args', at, errors);
  if (m.args.length > Math.max(def.numInputs, RELAY_EXTRA_ARGS[m.op]?.args ?? 0))
    errors.push(
      new SpecError(
        at(['relay', 'args', def.numInputs]),
        `Relay ${m.op} takes ${def.numInputs} argument${def.numInputs === 1 ? '' : 's'} (${def.args.join(', ')}), the mapping passes ${m.args.length} (${m.args.join(', ')})`,
        `write relay: { args: [...] } with the ${def.numInputs} args Relay's ${m.op} takes; the others must then stay at their defaults`,
      ),
    );
  const fields = def.attrs ?? {};
  const extra = RELAY_EXTRA_ATTRS[m.op] ?? {};
  for (const [k, argName] of Object.entries(m.attrs)) {
    if (extra[k] !== undefined) continue;
    const f = fields[k];
    if (!f) {
      errors.push(
        new SpecError(
          at(['relay', 'attrs', k], true),
          `Relay ${m.op} has no attribute '${k}' (${source})`,
          didYouMean(k, Object.keys(fields)) ??
            (Object.keys(fields).length
              ? `${m.op}'s attributes: ${Object.keys(fields).join(', ')}`
              : `${m.op} has no attributes: an arg Relay cannot carry must stay at its default (it is not tested through FromRelay)`),
        ),
      );
      continue;
    }
    const arg = argOf(op, argName);
    const takes = relayTakes(f.type);
    if (arg && takes && !takes.includes(arg.type))
      errors.push(
        new SpecError(
          at(['relay', 'attrs', k]),
          `Relay ${m.op}'s attribute '${k}' is ${f.type}, but '${argName}' is ${arg.type}`,
          `map '${k}' from an arg of type ${takes.join(' or ')}`,
        ),
      );
    // A null C++ default of an attr our arg cannot be null for (gather's Integer axis) marks it required, not null.
    const required = f.default === null && arg !== undefined && !arg.type.endsWith('?');
    if (arg?.default && 'default' in f && f.default !== undefined && !required) {
      const ours = k in m.defaults ? m.defaults[k] : arg.default.value;
      if (!sameDefault(f.default, ours))
        errors.push(
          new SpecError(
            at(k in m.defaults ? ['relay', 'defaults', k] : ['relay', 'attrs', k]),
            `Relay ${m.op} assumes ${k} = ${show(f.default)} when a call omits it, but the mapping says ${show(ours)}`,
            k in m.defaults
              ? `write defaults: { ${k}: ${show(f.default)} }`
              : `add defaults: { ${k}: ${show(f.default)} } to the relay mapping`,
          ),
        );
    }
  }
}

/**
 * The args a mapping carries: tensors passed as inputs, args named by its attrs (any opset's spelling), its flattened
 * axis. An arg it does not carry must be at its default for a case to be expressible through the target.
 */
export function carriedArgs(op: OpModel, target: 'relay' | 'onnx'): Set<string> {
  if (target === 'relay') {
    const m = op.relay;
    return new Set(m ? [...m.args, ...Object.values(m.attrs)] : []);
  }
  const m = op.onnx;
  if (!m) return new Set();
  // A value_tensor conversion types its tensor with the op's dtype arg (ConstantOfShape's value): dtype rides along.
  const typed = Object.values(m.convert).includes('value_tensor') ? ['dtype'] : [];
  return new Set([...m.inputs, ...Object.values(m.attrs), ...(m.flatten ? [m.flatten] : []), ...typed]);
}

/** The args a mapping leaves out, with the default each must keep: what a case must match to be expressible. */
export function fixedArgs(op: OpModel, target: 'relay' | 'onnx'): Record<string, unknown> {
  const carried = carriedArgs(op, target);
  const out: Record<string, unknown> = {};
  for (const a of op.args) if (!carried.has(a.name) && a.default) out[a.name] = a.default.value;
  return out;
}

const same = (a: unknown, b: unknown) => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);

/**
 * Why a test case is outside what a mapping can express, or null when the mapping expresses it: an arg the mapping
 * does not carry is set off its default, or a tensor it does not pass is given.
 */
export function notExpressible(
  op: OpModel,
  target: 'relay' | 'onnx',
  c: { readonly shapes: Readonly<Record<string, unknown>>; readonly full: Readonly<Record<string, unknown>> },
): string | null {
  const carried = carriedArgs(op, target);
  const tensor = Object.keys(c.shapes).find((t) => !carried.has(t));
  if (tensor !== undefined) return `${tensor} is given, and the ${target} mapping passes no ${tensor}`;
  for (const [k, v] of Object.entries(fixedArgs(op, target)))
    if (k in c.full && !same(c.full[k], v))
      return `${k} = ${show(c.full[k])}, and the ${target} mapping carries no ${k}`;
  return null;
}
