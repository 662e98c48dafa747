// Hand-written output rule of raf.op.prod (specs/reduce/prod.yaml): the rule sum uses (NumPy's accumulation dtype).

export { accumulateRule } from './sum.rule.ts';
