// A scaffold's answers as data, and the one-line syntax each answer has as a flag or a typed prompt.

import { parse as parseYaml } from 'yaml';
import {
  ARG_TYPES,
  CAST_RULES,
  FUSION_PATTERNS,
  type ArgType,
  type CastRuleKind,
  type FusionPattern,
} from '../../../runtime/src/vocab.ts';
import { nameProblem, ScaffoldError } from './names.ts';

export interface ArgAnswer {
  readonly name: string;
  readonly type: ArgType;
  /** Absent for a required arg; `{ value: null }` is "none". */
  readonly default?: { readonly value: unknown };
  readonly check?: string;
}

export type GradAnswer =
  | { readonly kind: 'derived' | 'custom' | 'none' }
  /** Per tensor input: a formula, or a call of a backward op (`softmax_dx(y, dy, axis)`). */
  | {
      readonly kind: 'formulas';
      readonly saves: readonly string[];
      readonly formulas: Readonly<Record<string, string>>;
    };

export interface MappingAnswer {
  readonly op: string;
  readonly opset?: number;
  /** Which of our args, in order (relay `args`, onnx `inputs`); absent means the tensor args. */
  readonly inputs?: readonly string[];
  readonly attrs: Readonly<Record<string, string>>;
}

export interface TestsAnswer {
  readonly shapes?: unknown[];
  readonly grid?: Readonly<Record<string, unknown[]>>;
  readonly domain?: readonly [number, number];
}

export interface ScaffoldAnswers {
  readonly op: string;
  readonly category: string;
  readonly doc: string;
  readonly compute: string | null;
  /** Reuse this op's schema instead of declaring args (`log_softmax` reuses `softmax`). */
  readonly schema: string | null;
  readonly args: readonly ArgAnswer[];
  readonly out: string;
  /** A tuple output's names; null for one output, or a tuple of as many as the rule returns. */
  readonly outputs: readonly string[] | null;
  readonly grad: GradAnswer;
  readonly fusion: FusionPattern;
  readonly cast: CastRuleKind | null;
  readonly relay: MappingAnswer | null;
  readonly onnx: MappingAnswer | null;
  readonly dialects: Readonly<Record<string, number>>;
  readonly tests: TestsAnswer;
}

export const DIALECTS = ['cpu', 'wasm', 'webgpu'] as const;

/** Splits on commas (or `sep`) that are not inside (), [] or {}: `range(0, 1)` stays one piece. */
export function splitTop(src: string, sep = ','): string[] {
  const out: string[] = [];
  let depth = 0;
  let cur = '';
  for (const ch of src) {
    if ('([{'.includes(ch)) depth++;
    else if (')]}'.includes(ch)) depth--;
    if (ch === sep && depth === 0) {
      out.push(cur);
      cur = '';
    } else cur += ch;
  }
  out.push(cur);
  return out.map((s) => s.trim()).filter(Boolean);
}

const ARG_ITEM = /^([A-Za-z_][\w.\/-]*)\s*:\s*([A-Za-z]+(?:\[\])?\??)\s*(?:=\s*(.*?))?\s*(?:\bcheck\s+(.+))?$/;

/** `x: Tensor, axis: int = -1 check axis(x), exclusive: bool = false` → args in positional order. */
export function parseArgs(src: string): ArgAnswer[] {
  const args: ArgAnswer[] = [];
  for (const item of splitTop(src)) {
    const m = ARG_ITEM.exec(item);
    if (!m)
      throw new ScaffoldError(
        `argument '${item}' is not 'name: type [= default] [check ...]'`,
        'for example: axis: int = -1 check axis(x)',
      );
    const [, name, type, dflt, check] = m as unknown as [
      string,
      string,
      string,
      string | undefined,
      string | undefined,
    ];
    const problem = nameProblem(name, 'arg');
    if (problem) throw new ScaffoldError(problem);
    if (!(ARG_TYPES as readonly string[]).includes(type))
      throw new ScaffoldError(`argument '${name}' has type '${type}'`, `types: ${ARG_TYPES.join(', ')}`);
    if (args.some((a) => a.name === name)) throw new ScaffoldError(`argument '${name}' is given twice`);
    args.push({
      name,
      type: type as ArgType,
      ...(dflt !== undefined && dflt !== '' ? { default: { value: parseScalar(dflt) } } : {}),
      ...(check ? { check: check.trim() } : {}),
    });
  }
  return args;
}

export function formatArgs(args: readonly ArgAnswer[]): string {
  return args
    .map(
      (a) =>
        `${a.name}: ${a.type}${a.default ? ` = ${JSON.stringify(a.default.value)}` : ''}${a.check ? ` check ${a.check}` : ''}`,
    )
    .join(', ');
}

/** YAML flow scalars and lists: `-1`, `false`, `null`, `[1, 2]`, `float32`. */
function parseScalar(src: string): unknown {
  try {
    return parseYaml(src);
  } catch {
    throw new ScaffoldError(`default '${src}' is not a YAML value`);
  }
}

/** `derived`, `custom`, `none`, or per-input formulas `x: dy * y` (saves given apart). */
export function parseGrad(src: string, saves: readonly string[] | undefined): GradAnswer {
  const s = src.trim();
  if (s === 'derived' || s === 'custom' || s === 'none') return { kind: s };
  const formulas: Record<string, string> = {};
  for (const item of splitTop(s)) {
    const m = /^([a-z]\w*)\s*:\s*(.+)$/.exec(item);
    if (!m)
      throw new ScaffoldError(
        `gradient '${item}' is not 'input: formula'`,
        'for example: x: dy * y, or x: softmax_dx(y, dy, axis); or derived, custom, none',
      );
    formulas[m[1]!] = m[2]!.trim();
  }
  return { kind: 'formulas', saves: saves ?? [], formulas };
}

export function formatGrad(g: GradAnswer): string {
  return g.kind === 'formulas'
    ? Object.entries(g.formulas)
        .map(([k, v]) => `${k}: ${v}`)
        .join(', ')
    : g.kind;
}

/** `CumProd opset=26 inputs=x,axis exclusive=exclusive`: the op, then key=value words. `none` or empty: no mapping. */
export function parseMapping(src: string, inputsKey: 'inputs' | 'args'): MappingAnswer | null {
  const words = src.trim().split(/\s+/).filter(Boolean);
  if (!words.length || words[0] === 'none') return null;
  const [op, ...rest] = words as [string, ...string[]];
  if (op.includes('='))
    throw new ScaffoldError(
      `mapping '${src}' must start with the op name`,
      `for example: CumProd opset=26 ${inputsKey}=x,axis exclusive=exclusive`,
    );
  let opset: number | undefined;
  let inputs: string[] | undefined;
  const attrs: Record<string, string> = {};
  for (const w of rest) {
    const m = /^([\w.]+)=(.+)$/.exec(w);
    if (!m) throw new ScaffoldError(`mapping word '${w}' is not key=value`);
    const [, k, v] = m as unknown as [string, string, string];
    if (k === 'opset' && inputsKey === 'inputs') {
      opset = Number(v);
      if (!Number.isInteger(opset) || opset < 1) throw new ScaffoldError(`opset '${v}' is not a positive integer`);
    } else if (k === inputsKey) inputs = v.split(',').filter(Boolean);
    else attrs[k] = v;
  }
  return { op, ...(opset !== undefined ? { opset } : {}), ...(inputs ? { inputs } : {}), attrs };
}

export function formatMapping(m: MappingAnswer | null, inputsKey: 'inputs' | 'args'): string {
  if (!m) return 'none';
  const words = [m.op];
  if (m.opset !== undefined) words.push(`opset=${m.opset}`);
  if (m.inputs) words.push(`${inputsKey}=${m.inputs.join(',')}`);
  for (const [k, v] of Object.entries(m.attrs)) words.push(`${k}=${v}`);
  return words.join(' ');
}

/** `cpu=10, webgpu=12` → dialect levels. */
export function parseDialects(src: string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const item of splitTop(src)) {
    const m = /^(\w+)\s*[=:]\s*(-?\d+)$/.exec(item);
    if (!m) throw new ScaffoldError(`dialect '${item}' is not dialect=level`, 'for example: cpu=10');
    if (!(DIALECTS as readonly string[]).includes(m[1]!))
      throw new ScaffoldError(`unknown dialect '${m[1]}'`, `dialects: ${DIALECTS.join(', ')}`);
    out[m[1]!] = Number(m[2]);
  }
  if (!Object.keys(out).length) throw new ScaffoldError('no dialect given', 'for example: cpu=10');
  return out;
}

export function formatDialects(d: Readonly<Record<string, number>>): string {
  return Object.entries(d)
    .map(([k, v]) => `${k}=${v}`)
    .join(', ');
}

export function parseChoice<T extends string>(src: string, choices: readonly T[], what: string): T {
  if (!(choices as readonly string[]).includes(src))
    throw new ScaffoldError(`${what} '${src}' is not one of: ${choices.join(', ')}`);
  return src as T;
}

export const parseFusion = (s: string): FusionPattern => parseChoice(s.trim(), FUSION_PATTERNS, 'fusion pattern');
export const parseCast = (s: string): CastRuleKind | null =>
  s.trim() === 'none' ? null : parseChoice(s.trim(), CAST_RULES, 'cast rule');

/** A YAML flow value of the expected shape (`[[3], [3, 2]]`, `{ axis: [0, -1] }`, `[0.1, 3]`); empty is "not given". */
export function parseFlow<T>(src: string, what: string, ok: (v: unknown) => v is T): T | undefined {
  if (!src.trim()) return undefined;
  let v: unknown;
  try {
    v = parseYaml(src);
  } catch {
    throw new ScaffoldError(`${what} '${src}' is not a YAML value`);
  }
  if (!ok(v)) throw new ScaffoldError(`${what} '${src}' does not have the expected form`);
  return v;
}

export const isList = (v: unknown): v is unknown[] => Array.isArray(v);
export const isGrid = (v: unknown): v is Record<string, unknown[]> =>
  typeof v === 'object' && v !== null && !Array.isArray(v) && Object.values(v).every(Array.isArray);
export const isRange = (v: unknown): v is [number, number] =>
  Array.isArray(v) && v.length === 2 && v.every((x) => typeof x === 'number');
