// opcheck: tests one op's registration the way torch.library.opcheck does, on sample calls an author supplies.

import { allDialectOps, getDialect, withDialect } from './dialect.ts';
import { invoke } from './dispatch.ts';
import { gradcheck } from './gradcheck.ts';
import { execute } from './graph/executor.ts';
import { trace } from './graph/trace.ts';
import { getOp, type AnyOpDef } from './registry.ts';
import type { Keyword } from './schema.ts';
import { Tensor } from './tensor.ts';

export interface OpcheckSample {
  /** Positional args, as the op's typed function takes them (tensors and attrs). */
  readonly args: readonly unknown[];
  readonly kwargs?: Keyword;
}

export interface OpcheckOptions {
  /** Dialects to check (default: every dialect the op registered that can run here). */
  readonly dialects?: readonly string[];
  /** Tensor args whose gradient is checked (default: the op's grad inputs that are float tensors). */
  readonly grad?: readonly string[];
  /** Other values to try per attr when checking that it matters (default: derived from the sample's value). */
  readonly attrValues?: Readonly<Record<string, readonly unknown[]>>;
  /** Attrs not to vary, with the reason (one that does not change the result for these samples). */
  readonly skipAttrs?: Readonly<Record<string, string>>;
  /** Throw an OpcheckError on a failure (default true); false returns the report either way. */
  readonly throws?: boolean;
}

export type OpcheckCheck = 'schema' | 'type' | 'graph' | 'gradient' | 'dialect' | 'attr';

export interface OpcheckResult {
  readonly check: OpcheckCheck;
  readonly sample: number;
  readonly dialect?: string;
  readonly ok: boolean;
  readonly message: string;
}

export interface OpcheckReport {
  readonly op: string;
  readonly results: readonly OpcheckResult[];
  readonly failures: readonly OpcheckResult[];
}

export class OpcheckError extends Error {
  constructor(readonly report: OpcheckReport) {
    super(
      `opcheck raf.op.${report.op}: ${report.failures.length} of ${report.results.length} checks failed\n` +
        report.failures
          .map((f) => `  [${f.check}] sample ${f.sample}${f.dialect ? ` on ${f.dialect}` : ''}: ${f.message}`)
          .join('\n'),
    );
    this.name = 'OpcheckError';
  }
}

type Op = AnyOpDef | string | { readonly name: string };

/**
 * Checks an op against sample calls: the schema parses them (positionally and by keyword alike); the type function's
 * output shape and dtype match what each dialect's kernel really returns; the traced graph gives exactly the eager
 * result; the gradient matches float64 central differences; every dialect agrees with the CPU; and changing any attr
 * changes the result (a kernel that ignores an attr, or a bridge whose cache key omits it, fails here).
 */
export async function opcheck(
  op: Op,
  samples: readonly OpcheckSample[],
  opts: OpcheckOptions = {},
): Promise<OpcheckReport> {
  const def = typeof op === 'string' ? getOp(op) : 'schema' in op ? (op as AnyOpDef) : getOp(op.name);
  const results: OpcheckResult[] = [];
  const dialects = usableDialects(def, opts.dialects);
  for (const [i, sample] of samples.entries()) {
    const push = (check: OpcheckCheck, ok: boolean, message: string, dialect?: string) =>
      results.push({ check, sample: i, ok, message, ...(dialect ? { dialect } : {}) });
    const attempt = async (check: OpcheckCheck, dialect: string | undefined, fn: () => Promise<string> | string) => {
      try {
        push(check, true, await fn(), dialect);
      } catch (e) {
        push(check, false, e instanceof Error ? e.message : String(e), dialect);
      }
    };
    let parsed: Record<string, unknown> | undefined;
    await attempt('schema', undefined, () => {
      parsed = checkSchema(def, sample);
      return 'parses positionally and by keyword to the same args';
    });
    if (!parsed) continue;
    const cpu: { value?: Tensor[] } = {};
    for (const d of dialects) {
      await attempt('type', d, async () => {
        const outs = await runOn(def, d, sample);
        const declared = declaredTypes(def, parsed!);
        if (outs.length !== declared.length)
          throw new Error(`returned ${outs.length} outputs, declared ${declared.length}`);
        outs.forEach((t, k) => {
          const want = declared[k]!;
          if (t.dtype !== want.dtype || JSON.stringify(t.shape) !== JSON.stringify(want.shape))
            throw new Error(
              `output ${k} is ${t.dtype} ${JSON.stringify(t.shape)}, the type function says ${want.dtype} ${JSON.stringify(want.shape)}`,
            );
        });
        if (d === 'cpu') cpu.value = outs;
        return `${declared.map((t) => `${t.dtype} ${JSON.stringify(t.shape)}`).join(', ')}`;
      });
    }
    if (cpu.value && dialects.length > 1) {
      for (const d of dialects.filter((x) => x !== 'cpu')) {
        await attempt('dialect', d, async () => {
          compare(await runOn(def, d, sample), cpu.value!, d === 'webgpu' ? 1e-3 : 1e-4, `${d} vs cpu`);
          return 'agrees with cpu';
        });
      }
    }
    await attempt('graph', 'cpu', () => {
      checkGraph(def, sample);
      return 'traced graph equals eager';
    });
    const gradArgs = (opts.grad ?? def.grad?.inputs ?? []).filter((name) => isFloatTensor(argOf(def, sample, name)));
    if (def.grad && gradArgs.length) {
      await attempt('gradient', 'cpu', () => {
        checkGradient(def, sample, gradArgs);
        return `${gradArgs.join(', ')} match float64 central differences`;
      });
    }
    for (const field of def.schema.fields) {
      if (field.type.startsWith('Tensor') || opts.skipAttrs?.[field.name]) continue;
      for (const d of dialects) {
        await attempt('attr', d, async () =>
          checkAttr(def, d, sample, parsed!, field.name, opts.attrValues?.[field.name]),
        );
      }
    }
  }
  const report: OpcheckReport = { op: def.name, results, failures: results.filter((r) => !r.ok) };
  if (report.failures.length && (opts.throws ?? true)) throw new OpcheckError(report);
  return report;
}

function usableDialects(def: AnyOpDef, only?: readonly string[]): string[] {
  const names = allDialectOps(def.name).map((d) => d.dialect);
  return names
    .filter((n) => (only ? only.includes(n) : getDialect(n)?.unavailable?.() === undefined))
    .sort((a, b) => (a === 'cpu' ? -1 : b === 'cpu' ? 1 : a < b ? -1 : 1));
}

const fieldNames = (def: AnyOpDef) => def.schema.fields.map((f) => f.name);

function checkSchema(def: AnyOpDef, sample: OpcheckSample): Record<string, unknown> {
  const positional = def.schema.parse(def.name, sample.args, sample.kwargs) as Record<string, unknown>;
  const names = fieldNames(def);
  const keyword: Record<string, unknown> = { ...sample.kwargs };
  sample.args.forEach((v, i) => (keyword[names[i]!] = v));
  const byKeyword = def.schema.parse(def.name, [], keyword) as Record<string, unknown>;
  for (const n of names) {
    if (!sameValue(positional[n], byKeyword[n]))
      throw new Error(
        `argument '${n}' parses to ${show(positional[n])} positionally but ${show(byKeyword[n])} by keyword`,
      );
  }
  return positional;
}

function argOf(def: AnyOpDef, sample: OpcheckSample, name: string): unknown {
  const i = fieldNames(def).indexOf(name);
  return i >= 0 && i < sample.args.length ? sample.args[i] : sample.kwargs?.[name];
}

const isFloatTensor = (v: unknown): v is Tensor =>
  v instanceof Tensor && (v.dtype === 'float32' || v.dtype === 'float64');

function declaredTypes(def: AnyOpDef, parsed: Record<string, unknown>): { shape: readonly number[]; dtype: string }[] {
  const decl = def.declare(parsed);
  if (decl.kind === 'value') return [];
  return decl.kind === 'tuple' ? [...decl.outs] : [decl.out];
}

const listOf = (y: unknown): Tensor[] => (y instanceof Tensor ? [y] : Array.isArray(y) ? (y as Tensor[]) : []);

/** The sample's outputs computed by one dialect, read back to the CPU. */
async function runOn(def: AnyOpDef, dialect: string, sample: OpcheckSample): Promise<Tensor[]> {
  const device = dialect === 'webgpu' ? 'webgpu' : 'cpu';
  const move = async (v: unknown): Promise<unknown> =>
    v instanceof Tensor ? v.to(device) : Array.isArray(v) && v[0] instanceof Tensor ? Promise.all(v.map(move)) : v;
  const args = await Promise.all(sample.args.map(move));
  const kwargs = sample.kwargs
    ? Object.fromEntries(await Promise.all(Object.entries(sample.kwargs).map(async ([k, v]) => [k, await move(v)])))
    : undefined;
  const outs = listOf(withDialect([dialect], () => invoke(def, args, kwargs)));
  return Promise.all(outs.map((t) => t.to('cpu')));
}

function compare(actual: readonly Tensor[], expected: readonly Tensor[], atol: number, what: string): void {
  expected.forEach((e, k) => {
    const a = actual[k]!;
    if (JSON.stringify(a.shape) !== JSON.stringify(e.shape))
      throw new Error(`${what}: output ${k} shape ${JSON.stringify(a.shape)}, expected ${JSON.stringify(e.shape)}`);
    const av = a.dataSync();
    const ev = e.dataSync();
    const tol = e.dtype === 'float64' && atol < 1e-3 ? 1e-9 : atol;
    for (let j = 0; j < ev.length; j++) {
      const x = Number(av[j]);
      const y = Number(ev[j]);
      if (Number.isNaN(x) && Number.isNaN(y)) continue;
      if (!(Math.abs(x - y) <= tol + tol * Math.abs(y)))
        throw new Error(`${what}: output ${k} element ${j} is ${x}, expected ${y} (atol ${tol})`);
    }
  });
}

/** Tensor args become graph parameters; everything else is a constant of the trace. */
function checkGraph(def: AnyOpDef, sample: OpcheckSample): void {
  const slots: number[] = [];
  sample.args.forEach((v, i) => v instanceof Tensor && slots.push(i));
  if (sample.kwargs && Object.values(sample.kwargs).some((v) => v instanceof Tensor)) {
    throw new Error('pass tensors positionally to check graph mode');
  }
  const withTensors = (ts: readonly Tensor[]) =>
    sample.args.map((v, i) => (slots.includes(i) ? ts[slots.indexOf(i)] : v));
  const inputs = slots.map((i) => sample.args[i] as Tensor);
  const eager = withDialect(['cpu'], () => listOf(invoke(def, sample.args, sample.kwargs)));
  const g = trace((...ts: Tensor[]) => invoke(def, withTensors(ts), sample.kwargs) as Tensor | Tensor[], inputs, {
    names: slots.map((i) => fieldNames(def)[i]!),
  });
  const graphed = withDialect(['cpu'], () => execute(g, inputs));
  compare(graphed, eager, 0, 'graph vs eager');
}

function checkGradient(def: AnyOpDef, sample: OpcheckSample, wrt: readonly string[]): void {
  const names = fieldNames(def);
  const slots = wrt.map((n) => names.indexOf(n)).filter((i) => i >= 0 && i < sample.args.length);
  const as64 = (t: Tensor) => (t.dtype === 'float64' ? t : (invoke(getOp('cast'), [t, 'float64']) as Tensor));
  const args = sample.args.map((v) => (isFloatTensor(v) ? as64(v) : v));
  const f = (...ts: Tensor[]) =>
    invoke(
      def,
      args.map((v, i) => (slots.includes(i) ? ts[slots.indexOf(i)] : v)),
      sample.kwargs,
    ) as Tensor | Tensor[];
  const failures = withDialect(['cpu'], () =>
    gradcheck(
      f,
      slots.map((i) => args[i] as Tensor),
    ),
  );
  if (failures.length) {
    const w = failures[0]!;
    throw new Error(
      `${failures.length} gradient element(s) differ; d/d${names[slots[w.arg]!]}[${w.index}] is ${w.analytic}, numeric ${w.numeric}`,
    );
  }
}

/** Values to try in place of an attr's: flips, neighbours and scalings, filtered by what the type function accepts. */
function alternatives(value: unknown): unknown[] {
  if (typeof value === 'boolean') return [!value];
  if (typeof value === 'number')
    return [value + 1, value - 1, value * 2 + 0.5, -value, value / 2].filter((v) => v !== value);
  if (Array.isArray(value) && value.every((v) => typeof v === 'number'))
    return [[...value].reverse(), value.map((v: number) => v + 1), value.slice(0, -1)];
  if (value === null) return [0, -1, 1];
  return [];
}

async function checkAttr(
  def: AnyOpDef,
  dialect: string,
  sample: OpcheckSample,
  parsed: Record<string, unknown>,
  name: string,
  given?: readonly unknown[],
): Promise<string> {
  const base = await runOn(def, dialect, sample);
  const i = fieldNames(def).indexOf(name);
  const tried: string[] = [];
  for (const alt of given ?? alternatives(parsed[name]).filter((v) => !sameValue(v, parsed[name]))) {
    const varied: OpcheckSample =
      i < sample.args.length
        ? { args: sample.args.map((v, k) => (k === i ? alt : v)), kwargs: sample.kwargs }
        : { args: sample.args, kwargs: { ...sample.kwargs, [name]: alt } };
    let outs: Tensor[];
    try {
      outs = await runOn(def, dialect, varied);
    } catch {
      tried.push(show(alt));
      continue; // the type function refuses this value: try the next
    }
    if (!sameOutputs(base, outs)) return `${name} = ${show(alt)} changes the result`;
    // Two values that name the same axis of an input (-1 and 0 of a 1-D tensor) rightly give the same result.
    if (sameAxis(sample, parsed[name], alt)) {
      tried.push(`${show(alt)} (the same axis here)`);
      continue;
    }
    throw new Error(
      `changing '${name}' from ${show(parsed[name])} to ${show(alt)} leaves the result unchanged: the kernel ignores it, ` +
        `or its bridge's cache key omits it so a kernel built for the old value ran (pass attrValues or skipAttrs if that is intended)`,
    );
  }
  return `not varied: no other value of '${name}' was accepted${tried.length ? ` (tried ${tried.join(', ')})` : ''}`;
}

/** Whether two integers are both axes of one of the sample's tensors and name the same one (-1 and 0 of a 1-D tensor). */
function sameAxis(sample: OpcheckSample, a: unknown, b: unknown): boolean {
  if (!Number.isInteger(a) || !Number.isInteger(b)) return false;
  const tensors = [...sample.args, ...Object.values(sample.kwargs ?? {})].flatMap((v) =>
    v instanceof Tensor ? [v] : Array.isArray(v) ? v.filter((t): t is Tensor => t instanceof Tensor) : [],
  );
  return tensors.some((t) => {
    const r = t.shape.length;
    const norm = (v: number) => (v < 0 ? v + r : v);
    return (
      r > 0 && [a, b].every((v) => (v as number) >= -r && (v as number) < r) && norm(a as number) === norm(b as number)
    );
  });
}

function sameOutputs(a: readonly Tensor[], b: readonly Tensor[]): boolean {
  return (
    a.length === b.length &&
    a.every((t, k) => {
      const u = b[k]!;
      if (t.dtype !== u.dtype || JSON.stringify(t.shape) !== JSON.stringify(u.shape)) return false;
      const x = t.dataSync();
      const y = u.dataSync();
      for (let j = 0; j < x.length; j++) if (!Object.is(Number(x[j]), Number(y[j]))) return false;
      return true;
    })
  );
}

function sameValue(a: unknown, b: unknown): boolean {
  if (a instanceof Tensor || b instanceof Tensor) return a === b;
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((v, i) => sameValue(v, b[i]));
  return Object.is(a, b);
}

const show = (v: unknown): string => (v instanceof Tensor ? v.toString() : JSON.stringify(v));
