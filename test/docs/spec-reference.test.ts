// docs/reference/spec.md is generated from the spec JSON Schema: every field the schema accepts (walked here on its
// own, not by the emitter's code) has a row with its type and a meaning, and every enum value is listed.

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from './shell.ts';

interface Node {
  type?: string | string[];
  enum?: unknown[];
  oneOf?: Node[];
  $ref?: string;
  properties?: Record<string, Node>;
  additionalProperties?: boolean | Node;
  items?: Node;
}

const schema = JSON.parse(readFileSync(join(ROOT, 'generators/schema/op-spec.schema.json'), 'utf8')) as Node & {
  definitions: Record<string, Node>;
};
const page = readFileSync(join(ROOT, 'docs/reference/spec.md'), 'utf8');

/** Field paths as the page writes them: `a.b`, `<name>` for a map's keys, `[]` for a list's items. */
function fieldPaths(node: Node, prefix: string, out: string[] = []): string[] {
  if (node.$ref) return out;
  for (const alt of [node, ...(node.oneOf ?? [])]) {
    for (const [name, child] of Object.entries(alt.properties ?? {})) {
      const path = prefix ? `${prefix}.${name}` : name;
      if (!out.includes(path)) out.push(path);
      fieldPaths(child, path, out);
    }
    if (alt.items) fieldPaths(alt.items, `${prefix}[]`, out);
    if (typeof alt.additionalProperties === 'object') fieldPaths(alt.additionalProperties, `${prefix}.<name>`, out);
  }
  return out;
}

/** The page's table rows: field → [type, required, meaning]. */
const rows = new Map(
  [...page.matchAll(/^\| `([^`]+)` \| (.*) \| (yes|) \| (.*) \|$/gm)].map((m) => [
    m[1]!.replace(/\\\|/g, '|'),
    m.slice(2),
  ]),
);

const enums = (n: Node): unknown[][] => [
  ...(n.enum ? [n.enum] : []),
  ...(n.oneOf ?? []).flatMap(enums),
  ...Object.values(n.properties ?? {}).flatMap(enums),
  ...(n.items ? enums(n.items) : []),
  ...(typeof n.additionalProperties === 'object' ? enums(n.additionalProperties) : []),
];

describe('docs/reference/spec.md', () => {
  const top = fieldPaths(schema, '');
  const defs = Object.entries(schema.definitions).flatMap(([name, n]) => fieldPaths(n, name));

  it('has a row for every field of the schema, and no row for a field it does not have', () => {
    expect(top.length).toBeGreaterThan(40);
    expect([...top, ...defs].filter((p) => !rows.has(p))).toEqual([]);
    expect([...rows.keys()].filter((p) => !top.includes(p) && !defs.includes(p))).toEqual([]);
  });

  it('says what every field means', () => {
    expect([...rows].filter(([, [, , meaning]]) => !meaning!.trim()).map(([p]) => p)).toEqual([]);
  });

  it('marks exactly the required fields', () => {
    const required = [...rows].filter(([, [, req]]) => req === 'yes').map(([p]) => p);
    expect(required).toEqual(expect.arrayContaining(['op', 'doc', 'relay.op', 'onnx.op', 'cast.rule', 'arg.type']));
    expect(required).not.toContain('args');
  });

  it('lists every value of every enum', () => {
    const all = [...enums(schema), ...Object.values(schema.definitions).flatMap(enums)].flat();
    expect(all.length).toBeGreaterThan(30);
    const text = page.replace(/\\\|/g, '|'); // table cells escape |
    expect(all.filter((v) => !text.includes(`\`${String(v)}\``))).toEqual([]);
  });
});
