// Emitter: the coverage matrix (docs/coverage.md), op × what exists for it, read off the model and the files emitted
// for it, so a reviewer sees what a new op still lacks and a dialect level without a kernel fails `gen --check`.

import type { Model, OpModel } from '../spec/model.ts';
import { SpecError } from '../spec/errors.ts';
import { paths, type EmittedFile } from './files.ts';
import { cell, markdownFile, oracleOf } from './docs.ts';

export const COVERAGE_PATH = 'docs/coverage.md';

type Mark = 'generated' | 'hand' | 'none' | 'missing';
interface Cell {
  readonly mark: Mark;
  readonly text: string;
}
interface Row {
  readonly op: OpModel;
  readonly cells: Readonly<Record<string, Cell>>;
}

const SYMBOL: { [M in Mark]: string } = { generated: '✓', hand: '✋', none: '—', missing: '✗' };
const FIXED_COLUMNS = ['declare', 'type', 'gradient', 'cast rule', 'relay', 'onnx'] as const;

/** Every dialect any op names, cpu first: one column each. */
function dialectColumns(model: Model): string[] {
  const names = new Set<string>(['cpu']);
  for (const op of model.ops) for (const d of op.dialects) names.add(d.name);
  return [...names].sort((a, b) => (a === 'cpu' ? -1 : b === 'cpu' ? 1 : a < b ? -1 : 1));
}

export function coverage(
  model: Model,
  emitted: readonly EmittedFile[],
): { columns: string[]; rows: Row[]; problems: SpecError[] } {
  const generated = new Set(emitted.filter((f) => f.kind === 'generated').map((f) => f.path));
  const hand = new Set(emitted.filter((f) => f.kind === 'stub').map((f) => f.path));
  const dialects = dialectColumns(model);
  const problems: SpecError[] = [];
  const rows = model.ops.map((op): Row => {
    const c = (mark: Mark, text: string): Cell => ({ mark, text });
    const file = (path: string, what = '') =>
      generated.has(path) ? c('generated', what) : c('missing', `${path} not generated`);
    const rule = op.out.shape.kind === 'custom' || op.out.shape.kind === 'host';
    const cells: Record<string, Cell> = {
      declare:
        rule && hand.has(paths.ruleStub(op.name))
          ? c('hand', op.out.shape.kind === 'host' ? 'host value' : 'custom rule')
          : file(paths.type(op.name)),
      type: file(paths.type(op.name)),
      gradient:
        op.grad.kind === 'none'
          ? c('none', 'none')
          : op.grad.kind === 'custom'
            ? c(hand.has(paths.gradStub(op.name)) ? 'hand' : 'missing', 'custom')
            : file(paths.grad(op.name), op.grad.kind),
      'cast rule': op.cast ? c('generated', op.cast.rule) : c('none', 'none'),
      relay: op.relay ? file(paths.relay(op.name), op.relay.op) : c('none', 'none'),
      onnx: op.onnx ? c('generated', op.onnx.op) : c('none', 'none'),
    };
    for (const d of dialects) {
      const level = op.dialects.find((x) => x.name === d);
      if (!level) {
        cells[d] = c('none', 'none');
        continue;
      }
      const registered = generated.has(paths.dialect(d, op.name)) || (op.out.shape.kind === 'host' && d === 'cpu');
      const kernel =
        op.out.shape.kind === 'host'
          ? 'host'
          : level.kernel === 'generated'
            ? 'generated'
            : hand.has(paths.kernelStub(d, op.name))
              ? 'hand'
              : null;
      if (registered && kernel)
        cells[d] = c(kernel === 'hand' ? 'hand' : 'generated', `${level.level}${kernel === 'host' ? ' host' : ''}`);
      else {
        cells[d] = c('missing', `${level.level}, no kernel`);
        problems.push(
          new SpecError(
            op.loc,
            `${op.name} asks for dialect ${d} at level ${level.level}, but no ${d} kernel is ${registered ? 'written' : 'generated or registered'} for it`,
            op.compute
              ? `the ${d} emitter does not generate kernels yet; drop ${d} from dialects`
              : `write ${paths.kernelStub(d, op.name)}, or drop ${d} from dialects`,
          ),
        );
      }
    }
    cells.tests = file(paths.test(op.name));
    const oracle = oracleOf(model, op);
    cells.oracle = c(oracle.kind === 'none' ? 'missing' : 'generated', oracle.kind === 'none' ? 'none' : oracle.text);
    return { op, cells };
  });
  return { columns: [...FIXED_COLUMNS, ...dialects, 'tests', 'oracle'], rows, problems };
}

// Emitting is the slow part of `gen`; the CLI reads the problems found while the matrix was emitted instead of emitting twice.
const found = new WeakMap<Model, readonly SpecError[]>();

/** The problems found when this model's matrix was last emitted (undefined if it never was). */
export function coverageProblems(model: Model): readonly SpecError[] | undefined {
  return found.get(model);
}

/** Run after the other emitters: the matrix is about what they produced. */
export function emitCoverage(model: Model, emitted: readonly EmittedFile[]): EmittedFile[] {
  const { columns, rows, problems } = coverage(model, emitted);
  found.set(model, problems);
  const head = ['op', ...columns];
  const body = rows.map(
    (r) =>
      `| [${r.op.name}](ops/${r.op.category}.md#${r.op.name}) | ${columns.map((k) => cell(`${SYMBOL[r.cells[k]!.mark]} ${r.cells[k]!.text}`.trim())).join(' | ')} |`,
  );
  const missing = rows.flatMap((r) =>
    columns
      .filter((k) => r.cells[k]!.mark === 'missing' && k !== 'oracle')
      .map((k) => `${r.op.name}, ${k}: ${r.cells[k]!.text}`),
  );
  const noOracle = rows.filter((r) => r.cells.oracle!.mark === 'missing').map((r) => r.op.name);
  const text = [
    '# Coverage',
    '',
    `What exists for each op: ✓ generated, ✋ hand-written (a stub raf-op created once; check it is filled in), — not asked for by the spec, ✗ missing. Dialect cells give the level. Op pages: [docs/ops](ops/README.md).`,
    '',
    // Rows stay unpadded (prettier would re-align every row whenever one cell widens): a new op is one new line.
    '<!-- prettier-ignore -->',
    `| ${head.join(' | ')} |`,
    `| ${head.map(() => '---').join(' | ')} |`,
    ...body,
    '',
    '## Problems',
    '',
    ...(missing.length ? missing.map((m) => `- ✗ ${m}`) : ['- none: every op has what its spec asks for']),
    ...(noOracle.length ? [`- no forward oracle (tested only by gradcheck and errors): ${noOracle.join(', ')}`] : []),
  ].join('\n');
  return [markdownFile(COVERAGE_PATH, 'coverage', 'specs/**/*.yaml and the files emitted for them', text)];
}
