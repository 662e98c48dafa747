// `npx tsx test/onnx-backend/cli.ts [FILTER...] [--ort] [--update] [--failures]`: runs ONNX's backend suite through
// raf-op (and, with --ort, onnxruntime-node) and prints the table by folder and the refusals by category.
// --update rewrites test/onnx-backend/expectations.json from this run (refused with reason, passed); it refuses while
// any case gives a wrong value, since a wrong value is never an expectation.

import { writeFileSync } from 'node:fs';
import { FOLDERS, listCases, runRaf, type Case, type Outcome } from './suite.ts';
import { categoryOf, EXPECTATIONS_PATH, expectationsFrom } from './expectations.ts';

const args = process.argv.slice(2);
const flags = new Set(args.filter((a) => a.startsWith('--')));
const filters = args.filter((a) => !a.startsWith('--'));
const cases = listCases().filter((c) => !filters.length || filters.some((f) => c.id.includes(f)));

const results = new Map<string, Outcome>();
for (const c of cases) {
  let out: Outcome;
  try {
    out = runRaf(c);
  } catch (e) {
    out = { status: 'refused', reason: `runner: ${(e as Error).message}` };
  }
  results.set(c.id, out);
  if (filters.length || flags.has('--verbose'))
    console.log(`${out.status.padEnd(7)} ${c.id}${out.status === 'pass' ? '' : `: ${out.reason}`}`);
}

let ortResults: Map<string, boolean> | null = null;
if (flags.has('--ort')) {
  const { runOrt } = await import('./ort.ts');
  ortResults = new Map();
  for (const c of cases) ortResults.set(c.id, await runOrt(c));
}

const byFolder = (f: string) => cases.filter((c: Case) => c.folder === f);
const count = (list: Case[], status: Outcome['status']) =>
  list.filter((c) => results.get(c.id)!.status === status).length;
console.log('\n| folder | raf-op passes | wrong | refused |' + (ortResults ? ' onnxruntime passes |' : ''));
console.log('|---|---|---|---|' + (ortResults ? '---|' : ''));
for (const f of [...FOLDERS, 'all']) {
  const list = f === 'all' ? cases : byFolder(f);
  if (!list.length) continue;
  const ort = ortResults ? ` ${list.filter((c) => ortResults!.get(c.id)).length} / ${list.length} |` : '';
  console.log(
    `| ${f} | ${count(list, 'pass')} / ${list.length} | ${count(list, 'fail')} | ${count(list, 'refused')} |${ort}`,
  );
}
const rounded = cases.filter((c) => results.get(c.id)!.status === 'rounding');
if (rounded.length)
  console.log(
    `\nwithin float32 rounding of the output's scale, not of each element: ${rounded.map((c) => c.id).join(', ')}`,
  );
if (ortResults) {
  const node = byFolder('node').filter((c) => ortResults!.get(c.id));
  console.log(`\nnode tests onnxruntime passes: raf-op passes ${count(node, 'pass')} of ${node.length}`);
}

const categories = new Map<string, number>();
for (const [, o] of results)
  if (o.status === 'refused') categories.set(categoryOf(o.reason), (categories.get(categoryOf(o.reason)) ?? 0) + 1);
console.log('\nrefusals by category:');
for (const [k, v] of [...categories].sort((a, b) => b[1] - a[1])) console.log(`  ${String(v).padStart(4)}  ${k}`);

const wrong = [...results].filter(([, o]) => o.status === 'fail');
if (wrong.length) {
  console.log(`\nwrong results (${wrong.length}):`);
  for (const [id, o] of wrong) console.log(`  ${id}: ${o.status === 'fail' ? o.reason : ''}`);
}
if (ortResults && flags.has('--failures'))
  for (const c of cases)
    if (ortResults.get(c.id) && results.get(c.id)!.status !== 'pass') {
      const o = results.get(c.id)!;
      console.log(`onnxruntime-only ${c.id}: ${o.status === 'pass' ? '' : o.reason}`);
    }
if (flags.has('--failures'))
  for (const [id, o] of results) if (o.status === 'refused') console.log(`refused ${id}: ${o.reason}`);

if (flags.has('--update')) {
  if (filters.length) throw new Error('--update runs the whole suite: give no filter');
  if (wrong.length) {
    console.error(
      `\nnot updating ${EXPECTATIONS_PATH}: ${wrong.length} case(s) give wrong values (fix or refuse them)`,
    );
    process.exit(1);
  }
  writeFileSync(EXPECTATIONS_PATH, `${JSON.stringify(expectationsFrom(results), null, 2)}\n`);
  console.log(`\nwrote ${EXPECTATIONS_PATH}`);
}
