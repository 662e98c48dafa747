// How spec arg types map to TypeScript types and literals in generated code.

import type { ArgModel, ArgType } from '../spec/model.ts';

const TS_TYPE: { [K in ArgType]: (tensor: string) => string } = {
  Tensor: (t) => t,
  'Tensor?': (t) => `${t} | null`,
  'Tensor[]': (t) => `readonly ${t}[]`,
  int: () => 'number',
  'int?': () => 'number | null',
  'int[]': () => 'readonly number[]',
  'int[]?': () => 'readonly number[] | null',
  'int|int[]': () => 'number | readonly number[]',
  float: () => 'number',
  'float?': () => 'number | null',
  'float[]': () => 'readonly number[]',
  bool: () => 'boolean',
  dtype: () => 'DType',
  'dtype?': () => 'DType | null',
  string: () => 'string',
  'string?': () => 'string | null',
};

export function tsType(type: ArgType, tensor = 'Tensor'): string {
  return TS_TYPE[type](tensor);
}

/** The type a public API parameter accepts: tensors may also be given as plain numbers. */
export function apiParamType(type: ArgType): string {
  if (type === 'Tensor') return 'Tensor | number';
  if (type === 'Tensor?') return 'Tensor | number | null';
  return tsType(type);
}

export { literal } from './escape.ts';

export const isTensor = (a: ArgModel) => a.type.startsWith('Tensor');
export const usesDType = (args: readonly ArgModel[]) => args.some((a) => a.type.startsWith('dtype'));
