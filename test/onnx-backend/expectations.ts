// The committed expectations of ONNX's backend suite (expectations.json): which cases pass, and which raf-op refuses
// with which message, as onnxruntime publishes the tests it skips and why. A wrong value is never an expectation; a
// case whose outputs differ from the stored ones only by float32 rounding relative to the output's scale is listed
// under `rounding` with the element the runner's per-element tolerance rejects.

import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Outcome } from './suite.ts';

export const EXPECTATIONS_PATH = join(dirname(fileURLToPath(import.meta.url)), 'expectations.json');

export interface Expectations {
  /** Cases whose every output matches. */
  readonly passed: readonly string[];
  /** Cases raf-op refuses, by category, each with its exact message. */
  readonly refused: Readonly<Record<string, Readonly<Record<string, string>>>>;
  /** Cases within float32 rounding of the output's scale, not of each element (suite.ts, `rounding`). */
  readonly rounding?: Readonly<Record<string, string>>;
}

/** Why a refusal happens, in the words of the expectations file's categories. */
const CATEGORIES: readonly [RegExp, string][] = [
  [/ops? raf-op does not import:|no raf-op spec maps ONNX op/, 'ONNX op without a raf-op mapping'],
  [/element type|has no tensor for|no raf-op dtype|does not read/, 'element type raf-op has no tensor for'],
  [/must be known when the model is imported/, 'shape-carrying input given at run time'],
  [/is mapped from opset|opset/, 'opset older than the mapping'],
  [/attribute/, 'attribute value not supported'],
  [/sequence|optional/i, 'sequence or optional values'],
  [/dtype|expects (float|int|bool)|int64|int32|uint8|int8|bool/, 'dtype the mapped op does not take'],
  [/rank|ndim|dimensions/, 'rank the mapped op does not take'],
];

export function categoryOf(reason: string): string {
  return CATEGORIES.find(([re]) => re.test(reason))?.[1] ?? 'other';
}

export function expectationsFrom(results: ReadonlyMap<string, Outcome>): Expectations {
  const ids = [...results.keys()].sort();
  const refused: Record<string, Record<string, string>> = {};
  for (const id of ids) {
    const o = results.get(id)!;
    if (o.status !== 'refused') continue;
    (refused[categoryOf(o.reason)] ??= {})[id] = o.reason;
  }
  const sorted = Object.fromEntries(
    Object.keys(refused)
      .sort()
      .map((k) => [k, refused[k]!]),
  );
  const rounding = Object.fromEntries(
    ids.flatMap((id) => {
      const o = results.get(id)!;
      return o.status === 'rounding' ? [[id, o.reason]] : [];
    }),
  );
  return { passed: ids.filter((id) => results.get(id)!.status === 'pass'), refused: sorted, rounding };
}

export function loadExpectations(): Expectations {
  if (!existsSync(EXPECTATIONS_PATH)) return { passed: [], refused: {} };
  return JSON.parse(readFileSync(EXPECTATIONS_PATH, 'utf8')) as Expectations;
}

/** The expected outcome of one case, or null when the file does not list it. */
export function expectedOf(e: Expectations, id: string): Outcome | null {
  if (e.passed.includes(id)) return { status: 'pass' };
  if (e.rounding && id in e.rounding) return { status: 'rounding', reason: e.rounding[id]! };
  for (const group of Object.values(e.refused)) if (id in group) return { status: 'refused', reason: group[id]! };
  return null;
}
