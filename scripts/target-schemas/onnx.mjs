#!/usr/bin/env node
// Derives generators/data/onnx-schemas.json from ONNX's own operator changelog (docs/Changelog.md), which ONNX
// generates from its operator definitions (onnx/defs/**) and which holds every version of every op of the default
// domain: since_version, inputs (optional / variadic), outputs, attributes with their types and defaults.
//
// Not run by CI (it needs a checkout of ONNX). To rerun:
//   git clone https://github.com/onnx/onnx /tmp/onnx            # or any clone / bare mirror of it
//   node scripts/target-schemas/onnx.mjs /tmp/onnx [commit]     # commit defaults to HEAD of that clone
// then review the diff of generators/data/onnx-schemas.json and run `npm run gen` (the spec checks read it).
//
// Only the default domain ("", ai.onnx) is kept: no spec maps an op of another domain (com.microsoft ops live in
// onnxruntime's ContribOperators.md; add them here, with their own source, when a spec needs one).

import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const [repo, commitArg = 'HEAD'] = process.argv.slice(2);
if (!repo) {
  console.error('usage: node scripts/target-schemas/onnx.mjs <onnx clone or git dir> [commit]');
  process.exit(2);
}
const git = (...args) => execFileSync('git', ['-C', repo, ...args], { encoding: 'utf8', maxBuffer: 1 << 28 });
const commit = git('rev-parse', `${commitArg}^{commit}`).trim();
let describe = '';
try {
  describe = git('describe', '--tags', commit).trim();
} catch {
  describe = commit.slice(0, 12);
}
const text = git('show', `${commit}:docs/Changelog.md`);

/** A default as the changelog prints it: a number where it reads as one, else the text. */
function parseDefault(s) {
  const t = s.trim();
  if (/^-?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(t)) return Number(t);
  return t;
}

const TYPES = {
  int: 'int',
  float: 'float',
  string: 'string',
  tensor: 'tensor',
  graph: 'graph',
  sparse_tensor: 'sparse_tensor',
  'sparse tensor': 'sparse_tensor',
  type_proto: 'type_proto',
  'list of ints': 'ints',
  'list of floats': 'floats',
  'list of strings': 'strings',
  'list of tensors': 'tensors',
  'list of graphs': 'graphs',
  'list of sparse tensors': 'sparse_tensors',
  'list of type protos': 'type_protos',
};

function section(body, title) {
  const m = new RegExp(`^#### ${title}[^\\n]*\\n+<dl>\\n([\\s\\S]*?)\\n</dl>`, 'm').exec(body);
  return m ? m[1].split('\n').filter((l) => l.startsWith('<dt>')) : [];
}

function params(lines) {
  return lines.map((l) => {
    const m = /^<dt><tt>([^<]+)<\/tt>(?: \(([^)]*)\))? : /.exec(l);
    if (!m) throw new Error(`unreadable parameter line: ${l}`);
    const flags = (m[2] ?? '').split(',').map((f) => f.trim());
    const p = { name: m[1] };
    if (flags.includes('optional')) p.optional = true;
    if (flags.includes('variadic')) p.variadic = true;
    return p;
  });
}

function attrs(lines) {
  const out = {};
  for (const l of lines) {
    const m = /^<dt><tt>([^<]+)<\/tt> : (.+?)(?: \((required|default is (.*))\))?<\/dt>$/.exec(l);
    if (!m) throw new Error(`unreadable attribute line: ${l}`);
    const type = TYPES[m[2]];
    if (!type) throw new Error(`unknown attribute type '${m[2]}' in: ${l}`);
    const a = { type };
    if (m[3] === 'required') a.required = true;
    else if (m[4] !== undefined) a.default = parseDefault(m[4]);
    out[m[1]] = a;
  }
  return out;
}

const ops = {};
let latest = 0;
const heads = [...text.matchAll(/^### <a name="([^"]+)"><\/a>\*\*[^*]+\*\*( \(deprecated\))?<\/a>$/gm)];
heads.forEach((h, i) => {
  const body = text.slice(h.index + h[0].length, i + 1 < heads.length ? heads[i + 1].index : undefined);
  const m = /^(.*)-(\d+)$/.exec(h[1]);
  if (!m) throw new Error(`unreadable op heading ${h[1]}`);
  const [, name, v] = m;
  if (name.includes('.')) return; // another domain (ai.onnx.preview.*, ai.onnx.ml lives in Changelog-ml.md)
  const since = Number(v);
  const versionLine = /(?:available|deprecated) since version (\d+) of the default ONNX operator set/.exec(body);
  const experimental = /No versioning maintained for experimental ops/.test(body);
  if (!experimental && (!versionLine || Number(versionLine[1]) !== since))
    throw new Error(`${h[1]}: no matching version line`);
  latest = Math.max(latest, since);
  const entry = {
    since,
    inputs: params(section(body, 'Inputs')),
    outputs: params(section(body, 'Outputs')),
    attrs: attrs(section(body, 'Attributes')),
  };
  if (experimental) entry.experimental = true;
  // A deprecated version ("has been deprecated since version N": Upsample-10, GroupNormalization-18) is documented
  // without a signature: only that it exists. Importers may still take it; nothing about its inputs is known here.
  if (h[2] || /has been deprecated since version/.test(versionLine?.[0] ?? '')) {
    entry.deprecated = true;
    delete entry.inputs;
    delete entry.outputs;
    delete entry.attrs;
  }
  (ops[name] ??= []).push(entry);
});
for (const list of Object.values(ops)) list.sort((a, b) => a.since - b.since);

const names = Object.keys(ops).sort();
const lines = names.map((n) => `    ${JSON.stringify(n)}: ${JSON.stringify(ops[n])}`);
const out = `{
  "source": ${JSON.stringify({ repo: 'onnx/onnx', commit, describe, file: 'docs/Changelog.md', script: 'scripts/target-schemas/onnx.mjs' })},
  "domain": "",
  "latestOpset": ${latest},
  "ops": {
${lines.join(',\n')}
  }
}
`;
JSON.parse(out);
const target = fileURLToPath(new URL('../../generators/data/onnx-schemas.json', import.meta.url));
writeFileSync(target, out);
console.log(`${names.length} ONNX ops, ${heads.length} versions read, latest opset ${latest} → ${target}`);
