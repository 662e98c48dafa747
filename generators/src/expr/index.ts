// Public surface of the `compute:` expression toolkit: IR, parser/printer, simplifier, derivatives, evaluator, renderers.
export * from './ast.ts';
export { ExprError, parseExpr, printExpr } from './parse.ts';
export { simplify } from './simplify.ts';
export { diff } from './diff.ts';
export { evalExpr } from './eval.ts';
export {
  WGSL_HELPERS,
  jsHelpersUsed,
  renderJs,
  renderWgsl,
  wgslHelperSource,
  wgslHelpersUsed,
  type RenderOptions,
  type WgslFloat,
} from './render.ts';
