// Hand-written output rule of raf.op.cumprod (specs/tensor/cumprod.yaml): the scan rule cumsum uses.

export { scanRule } from './cumsum.rule.ts';
