// ONNX's non-tensor values as FromOnnx holds them while a model converts: a sequence is a list of tensors, an optional
// holds one value or none. They exist only inside the imported graph (its inputs and outputs stay tensors): every
// element is an ordinary (known or traced) tensor, and the sequence ops move them around at import.

import type { DType } from '../../dtype.ts';
import { Tensor } from '../../tensor.ts';
import { isSymbolic } from '../trace.ts';

/** An ONNX sequence: its tensors in order, and the element type it was declared with (SequenceEmpty's dtype). */
export class OnnxSequence {
  constructor(
    readonly items: readonly Tensor[],
    readonly dtype: DType | null = items[0]?.dtype ?? null,
  ) {}
}

/** An ONNX optional: a tensor or a sequence, or none. */
export class OnnxOptional {
  constructor(readonly value: Tensor | OnnxSequence | null) {}
}

/**
 * A sequence of ONNX maps, as ZipMap gives a classifier's probabilities: one map per row, class label (an int64 or a
 * string) to probability. It is only ever a model output (OnnxSession.runValues builds it from the probabilities).
 */
export class OnnxMaps {
  constructor(readonly maps: readonly ReadonlyMap<number | string, number>[]) {}
}

/** A value FromOnnx tracks by name. */
export type ImportValue = Tensor | OnnxSequence | OnnxOptional;

/** What kind of ONNX value `v` is, for messages. */
export function kindOf(v: ImportValue): string {
  if (v instanceof OnnxSequence) return 'an ONNX sequence';
  if (v instanceof OnnxOptional) return 'an ONNX optional';
  return 'a tensor';
}

/** Whether a value is known at import: a concrete tensor, or a container of them only. */
export function isKnownValue(v: ImportValue): boolean {
  if (v instanceof Tensor) return !isSymbolic(v);
  if (v instanceof OnnxSequence) return v.items.every((t) => !isSymbolic(t));
  return v.value === null || isKnownValue(v.value);
}
