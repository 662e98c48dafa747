// Emitter: the spec reference (docs/reference/spec.md), generated from the JSON Schema every spec is validated
// against (generators/schema/op-spec.schema.json), so the page lists exactly the fields `gen` accepts.

import type { Model } from '../spec/model.ts';
import { SPEC_SCHEMA } from '../spec/structure.ts';
import { cell, markdownFile } from './docs.ts';
import type { EmittedFile } from './files.ts';

export const SPEC_REFERENCE = 'docs/reference/spec.md';
const SCHEMA_FILE = 'generators/schema/op-spec.schema.json';

/** The slice of JSON Schema (draft 7) the spec schema uses. */
interface Node {
  readonly type?: string | readonly string[];
  readonly enum?: readonly unknown[];
  readonly oneOf?: readonly Node[];
  readonly $ref?: string;
  readonly description?: string;
  readonly properties?: Readonly<Record<string, Node>>;
  readonly additionalProperties?: boolean | Node;
  readonly propertyNames?: Node;
  readonly required?: readonly string[];
  readonly items?: Node;
  readonly pattern?: string;
  readonly minimum?: number;
  readonly minItems?: number;
  readonly maxItems?: number;
  readonly uniqueItems?: boolean;
}

interface Row {
  readonly path: string;
  readonly type: string;
  readonly required: boolean;
  readonly description: string;
}

/** The page depends on the schema alone (not on the specs), so adding an op never changes it. */
export function emitSpecReference(_model: Model): EmittedFile[] {
  return [markdownFile(SPEC_REFERENCE, 'spec-docs', SCHEMA_FILE, specPage(SPEC_SCHEMA as Node))];
}

const definitions = (root: Node) => (root as { definitions?: Record<string, Node> }).definitions ?? {};

function resolve(root: Node, node: Node): Node {
  if (!node.$ref) return node;
  const name = node.$ref.replace('#/definitions/', '');
  const target = definitions(root)[name];
  if (!target) throw new Error(`${SCHEMA_FILE}: $ref '${node.$ref}' names no definition`);
  return target;
}

const code = (v: unknown) => `\`${typeof v === 'string' ? v : JSON.stringify(v)}\``;

/** A one-line type: `string`, one of the enum's values, `list of T`, `map name → T`, alternatives joined by `or`. */
function typeText(root: Node, node: Node): string {
  if (node.$ref) return `${node.$ref.replace('#/definitions/', '')} (below)`;
  if (node.enum) return `one of ${node.enum.map(code).join(', ')}`;
  if (node.oneOf) return [...new Set(node.oneOf.map((n) => typeText(root, n)))].join(' or ');
  const types = node.type === undefined ? [] : typeof node.type === 'string' ? [node.type] : [...node.type];
  const parts: string[] = [];
  for (const t of types) {
    if (t === 'array') {
      const items = node.items ? typeText(root, node.items) : 'any';
      const n = node.minItems !== undefined && node.minItems === node.maxItems ? ` (exactly ${node.minItems})` : '';
      parts.push(`list of ${items}${n}${node.uniqueItems ? ', no repeats' : ''}`);
    } else if (t === 'object') {
      if (node.properties) parts.push('object (fields below)');
      else if (typeof node.additionalProperties === 'object')
        parts.push(`map name → ${typeText(root, node.additionalProperties)}`);
      else parts.push('object');
    } else {
      let text = t;
      if (node.pattern) text += ` matching ${code(node.pattern)}`;
      if (node.minimum !== undefined) text += ` ≥ ${node.minimum}`;
      parts.push(text);
    }
  }
  return parts.length ? [...new Set(parts)].join(' or ') : 'any value';
}

/** Every field under a node, depth first, with dotted paths (`<name>` for a map's keys). */
function rows(root: Node, node: Node, prefix: string, out: Row[] = []): Row[] {
  const n = resolve(root, node);
  const objects = [n, ...(n.oneOf ?? []).map((o) => resolve(root, o))];
  const seen = new Set<string>();
  for (const o of objects) {
    for (const [name, child] of Object.entries(o.properties ?? {})) {
      const path = prefix ? `${prefix}.${name}` : name;
      if (seen.has(path)) continue;
      seen.add(path);
      out.push({
        path,
        type: typeText(root, child),
        required: (o.required ?? []).includes(name),
        description: describe(root, child, path),
      });
      if (!child.$ref) rows(root, child, path, out);
    }
    if (o.items && !o.items.$ref && resolve(root, o.items).properties) rows(root, o.items, `${prefix}[]`, out);
    const extra = o.additionalProperties;
    if (typeof extra === 'object' && (resolve(root, extra).properties || extra.oneOf) && !extra.$ref)
      rows(root, extra, `${prefix}.<name>`, out);
  }
  return out;
}

/**
 * What the schema leaves undescribed, by field path: the page says it here rather than leaving a blank. A description
 * in the schema wins, so adding one there moves the text to its source.
 */
const NOTES: Readonly<Record<string, string>> = {
  'out.shape': 'An output rule as in the string form, when the output needs its own dtype.',
  'out.dtype': 'The output dtype, overriding the rule’s (`bool` for comparisons).',
  'grad.saves':
    'What the backward keeps from the forward: tensor args and `y` (the output). Formulas read only these, `dy` and non-tensor args.',
  'grad.custom':
    '`true`: the gradient is hand-written (`runtime/src/ops/<op>.grad.ts`) and keeps what `saves` names; no formulas then.',
  fusion: 'The fusion pattern: how `fuseOps` may group this op with its neighbours (`opaque` never fuses).',
  cast: 'The AMP rule AutoCast applies to this op’s data args.',
  'cast.rule':
    '`always` runs the data args in the AMP dtype (float16), `never` in float32, `infer` in the AMP dtype when any data arg already is.',
  relay: 'How TVM Relay spells the op: FromRelay’s converter and the FromRelay test are generated from it.',
  'relay.op': 'The Relay op name (`nn.softmax`).',
  onnx: 'How ONNX spells the op: FromOnnx’s mapping and the test oracle (onnxruntime-node) are generated from it.',
  'onnx.op': 'The ONNX operator (`Softmax`).',
  'onnx.before.<name>.inputs': 'As `onnx.inputs`, for opsets below the key.',
  'onnx.before.<name>.attrs': 'As `onnx.attrs`, for opsets below the key.',
  'onnx.before.<name>.defaults': 'As `onnx.defaults`, for opsets below the key.',
  'dialects.cpu': 'Level of the TypeScript CPU kernel (`runtime/src/dialects/cpu/kernels/<op>.ts`).',
  'dialects.webgpu': 'Level of the WGSL kernel (`runtime/src/dialects/webgpu/kernels/<op>.ts`).',
  'dialects.wasm': 'Level of the WebAssembly SIMD kernel (float32 and float64 on the CPU device).',
  tests: 'What the generated suite `test/generated/<op>.test.ts` runs.',
  'tests.grid': 'Values per non-tensor arg; the suite runs their cross product with `shapes`.',
  'tests.dtypes': 'The dtypes the suite runs (default float32 and float64).',
  'tests.inputs.<name>.dtype': 'This input’s dtype in every case.',
  'tests.inputs.<name>.domain': 'This input’s range, `[lo, hi]`.',
  'tests.cases[].shapes': 'One shape per tensor arg.',
  'tests.cases[].args': 'Non-tensor args by name.',
  'tests.errors[].shapes': 'One shape per tensor arg.',
  'tests.errors[].args': 'Non-tensor args by name.',
  'tests.errors[].message': 'A fragment the error message must contain.',
  'arg.type': 'The arg’s type; `?` makes `null` a value, `[]` a list.',
  'arg.doc': 'The arg’s documentation (the API’s JSDoc `@param`).',
};

function describe(root: Node, node: Node, path: string): string {
  const own = node.description ?? NOTES[path] ?? '';
  const alternatives = (node.oneOf ?? [])
    .map((o) => resolve(root, o).description)
    .filter((d): d is string => d !== undefined);
  return [own, ...alternatives].filter((d) => d).join(' ');
}

function table(list: readonly Row[]): string[] {
  return [
    '<!-- prettier-ignore -->',
    '| field | type | required | meaning |',
    '| --- | --- | --- | --- |',
    ...list.map(
      (r) => `| \`${cell(r.path)}\` | ${cell(r.type)} | ${r.required ? 'yes' : ''} | ${cell(r.description)} |`,
    ),
  ];
}

function specPage(root: Node): string {
  const top = Object.keys(root.properties ?? {});
  const all = rows(root, root, '');
  const defs = Object.entries(definitions(root));
  return [
    '# Spec reference',
    '',
    `Every field a spec (\`specs/<category>/<op>.yaml\`) may have, read from the JSON Schema \`gen\` validates specs`,
    `against ([${SCHEMA_FILE}](../../${SCHEMA_FILE})). A field the schema does not list is an error at its`,
    'file:line:col, with the allowed fields as the hint. [docs/writing-ops.md](../writing-ops.md) walks through a',
    'spec; the formulas of `grad:` and `tests.oracle` have [their own reference](formulas.md).',
    '',
    `${root.description ?? ''} Required: ${(root.required ?? []).map(code).join(', ')}. Top-level fields, in the`,
    `order a spec usually gives them: ${top.map(code).join(', ')}.`,
    '',
    '## Fields',
    '',
    'A path `a.b` is field `b` inside `a`; `<name>` stands for a key you choose (an arg name, an ONNX attribute).',
    '',
    ...table(all),
    '',
    ...defs.flatMap(([name, node]) => [
      `## ${name}`,
      '',
      `${node.description ?? `Used as \`${name}\` above.`} Type: ${typeText(root, { ...node, $ref: undefined })}.`,
      '',
      ...(node.properties ? [...table(rows(root, node, `${name}`)), ''] : []),
    ]),
  ].join('\n');
}
