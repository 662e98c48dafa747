// String tensors. raf-op has no string dtype: a tensor of strings holds int32 ids into one process-wide table of the
// strings seen so far, and is marked as strings (by tensor, like the importer's narrow formats). Equal ids are equal
// strings, so ops that move or select elements (reshape, gather, concatenate, where) and equality work on the ids
// unchanged; ops that make new strings (the ONNX importer's StringConcat, StringSplit, StringNormalizer) read the
// strings, compute in JavaScript and intern the results. The table only grows: every distinct string stays for the
// life of the process.

import { tensor, type Tensor } from './tensor.ts';

const idOf = new Map<string, number>();
const texts: string[] = [];
const marked = new WeakSet<Tensor>();

/** The id of a string in the table, adding it on first sight. */
export function internString(s: string): number {
  let id = idOf.get(s);
  if (id === undefined) {
    id = texts.length;
    texts.push(s);
    idOf.set(s, id);
  }
  return id;
}

/** The string an id stands for. */
export function stringOfId(id: number): string {
  const s = texts[id];
  if (s === undefined) throw new Error(`strings: ${id} is not the id of a string raf-op has seen`);
  return s;
}

/** Records that t holds string ids; returns t. */
export function markStrings<T extends Tensor>(t: T): T {
  marked.add(t);
  return t;
}

/** Whether t is a tensor of strings (made by stringTensor, or a string value of an imported model). */
export function isStringTensor(t: unknown): boolean {
  return typeof t === 'object' && t !== null && marked.has(t as Tensor);
}

/** A tensor of strings: row-major `values`, of `shape` (default [values.length]). */
export function stringTensor(values: readonly string[], shape?: readonly number[]): Tensor {
  const s = shape ?? [values.length];
  if (s.reduce((a, b) => a * b, 1) !== values.length)
    throw new Error(`stringTensor: ${values.length} strings do not fill shape [${s.join(', ')}]`);
  return markStrings(tensor(Int32Array.from(values, internString), { dtype: 'int32', shape: s }));
}

/** The strings of a string tensor, row-major. */
export function stringsOf(t: Tensor): string[] {
  if (!isStringTensor(t))
    throw new Error(`stringsOf: the tensor (${t.dtype} [${t.shape.join(', ')}]) holds no strings`);
  return Array.from(t.dataSync() as ArrayLike<number>, stringOfId);
}
