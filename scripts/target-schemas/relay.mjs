#!/usr/bin/env node
// Derives generators/data/relay-ops.json from TVM's Relay op registry: every op registered in src/relay with
// RELAY_REGISTER_OP (and the UNARY/BINARY/CMP/REDUCE macros that wrap it), its arguments (add_argument) and input
// count, and the fields of its attrs struct (set_attrs_type<T> / set_attrs_type_key) with their C++ types and
// defaults (TVM_ATTR_FIELD(...).set_default(...) in include/tvm/relay/attrs/*.h and src/relay).
//
// Relay was removed from TVM after v0.19 (apache/tvm#17660); the table follows v0.19.0, the last release with it.
// Not run by CI (it needs a checkout of TVM). To rerun:
//   git clone https://github.com/apache/tvm /tmp/tvm            # or any clone / bare mirror of it
//   node scripts/target-schemas/relay.mjs /tmp/tvm [commit]     # commit defaults to the tag v0.19.0
// then review the diff of generators/data/relay-ops.json and run `npm run gen` (the spec checks read it).

import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const [repo, commitArg = 'refs/tags/v0.19.0'] = process.argv.slice(2);
if (!repo) {
  console.error('usage: node scripts/target-schemas/relay.mjs <tvm clone or git dir> [commit]');
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
const files = git('ls-tree', '-r', '--name-only', commit, 'src/relay', 'include/tvm/relay')
  .split('\n')
  .filter((f) => /\.(h|cc)$/.test(f));
const sources = new Map(files.map((f) => [f, git('show', `${commit}:${f}`)]));

/** The text of a balanced parenthesised group starting at s[i] === '('. */
function group(s, i) {
  let depth = 0;
  for (let j = i; j < s.length; j++) {
    if (s[j] === '(') depth++;
    else if (s[j] === ')' && --depth === 0) return s.slice(i + 1, j);
  }
  return s.slice(i + 1);
}

/** A C++ default as JSON where it reads as a plain value; otherwise the C++ text. */
function parseDefault(src) {
  const t = src.replace(/\s+/g, ' ').trim();
  if (/^NullValue<.*>\(\)$/.test(t) || t === 'NullOpt' || t === 'nullptr') return { default: null };
  const num = /^(?:static_cast<\w+>\()?(-?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)[fFlL]?\)?$/.exec(t);
  if (num) return { default: Number(num[1]) };
  const b = /^(?:Bool\()?(true|false)\)?$/.exec(t);
  if (b) return { default: b[1] === 'true' };
  const str = /^(?:String\(|std::string\(|tvm::String\()?"([^"]*)"\)?$/.exec(t);
  if (str) return { default: str[1] };
  const int = /^Integer\((-?\d+)\)$/.exec(t);
  if (int) return { default: Number(int[1]) };
  const arr = /^Array<\w+>\(\{([^{}]*)\}\)$/.exec(t);
  if (arr) return { default: arr[1].trim() ? arr[1].split(',').map((x) => Number(x.trim())) : [] };
  if (/^Array<[\w<>: ]+>\(\)$/.test(t)) return { default: [] };
  if (/^DataType::Void\(\)$/.test(t) || /^NullValue<DataType>\(\)$/.test(t)) return { default: null };
  return { defaultSource: t };
}

// Attrs structs: fields with types (declarations before TVM_DECLARE_ATTRS) and defaults (TVM_ATTR_FIELD chains).
const structs = {};
const typeKeys = {};
for (const text of sources.values()) {
  for (const m of text.matchAll(/struct (\w+)\s*:\s*public\s+(?:tvm::)?AttrsNode<\1>\s*\{/g)) {
    const start = m.index + m[0].length;
    const decl = text.indexOf('TVM_DECLARE_ATTRS', start);
    if (decl < 0) continue;
    const head = text.slice(start, decl).replace(/\/\/[^\n]*|\/\*[\s\S]*?\*\//g, '');
    const types = {};
    for (const d of head.matchAll(/^\s*([\w:<>, ]+?)\s+(\w+)\s*(?:=[^;]*)?;/gm))
      types[d[2]] = d[1].replace(/\s+/g, ' ');
    const key = /TVM_DECLARE_ATTRS\(\s*\w+\s*,\s*"([^"]+)"\)/.exec(text.slice(decl));
    if (key) typeKeys[key[1]] = m[1];
    const bodyStart = text.indexOf('{', decl);
    const bodyEnd = text.indexOf('\n  }', bodyStart);
    const body = text.slice(bodyStart, bodyEnd < 0 ? undefined : bodyEnd);
    const fields = {};
    const heads = [...body.matchAll(/TVM_ATTR_FIELD\((\w+)\)/g)];
    heads.forEach((h, i) => {
      const chain = body.slice(h.index, i + 1 < heads.length ? heads[i + 1].index : undefined);
      const f = { type: types[h[1]] ?? 'unknown' };
      const d = chain.indexOf('.set_default(');
      if (d >= 0) Object.assign(f, parseDefault(group(chain, d + '.set_default'.length)));
      fields[h[1]] = f;
    });
    structs[m[1]] = fields;
  }
}

// Macros that wrap RELAY_REGISTER_OP: their bodies add arguments and input counts.
const macros = {};
for (const text of sources.values())
  for (const m of text.matchAll(/#define (RELAY_REGISTER_\w+)\((\w+)\)((?:[^\n]*\\\n)*[^\n]*)/g))
    if (m[1] !== 'RELAY_REGISTER_OP') macros[m[1]] = { param: m[2], body: m[3].replace(/\\\n/g, '\n') };

function describeChain(chain) {
  const args = [...chain.matchAll(/\.add_argument\(\s*"(\w+)"\s*,\s*"([^"]*)"/g)].map((a) => ({
    name: a[1],
    type: a[2],
  }));
  const n = /\.set_num_inputs\((\d+)\)/.exec(chain);
  const t = /\.set_attrs_type<(?:\w+::)*(\w+)>\(\)/.exec(chain);
  const k = /\.set_attrs_type_key\("([^"]+)"\)/.exec(chain);
  return { args, numInputs: n ? Number(n[1]) : null, attrsType: t ? t[1] : k ? (typeKeys[k[1]] ?? k[1]) : null };
}

/**
 * Ops registered without set_attrs_type (cumsum, cumprod) still get attrs: the make function that builds their
 * call (`Op::Get("cumsum")`) allocates them with make_object<ScanopAttrs>().
 */
function attrsOfMake(text, name) {
  const at = text.indexOf(`Op::Get("${name}")`);
  if (at < 0) return null;
  const fnStart = text.lastIndexOf('\n}', at);
  const m = [...text.slice(fnStart < 0 ? 0 : fnStart, at).matchAll(/make_object<(\w+Attrs)>\(\)/g)].pop();
  return m ? m[1] : null;
}

const ops = {};
const extra = {};
for (const [file, text] of sources) {
  const regs = [...text.matchAll(/^\s*(RELAY_REGISTER_\w*OP)\(\s*((?:"[^"]*"\s*)+)\)/gm)];
  regs.forEach((r, i) => {
    const name = [...r[2].matchAll(/"([^"]*)"/g)].map((q) => q[1]).join('');
    const chain = text.slice(r.index + r[0].length, i + 1 < regs.length ? regs[i + 1].index : undefined);
    const own = describeChain(chain);
    const viaMacro = r[1] !== 'RELAY_REGISTER_OP' && macros[r[1]] ? describeChain(macros[r[1]].body) : null;
    const args = [...(viaMacro?.args ?? []), ...own.args];
    const attrsType = own.attrsType ?? viaMacro?.attrsType ?? attrsOfMake(text, name);
    // A second RELAY_REGISTER_OP of a name (mac_count.cc adding FMacCount) only adds op attributes: the
    // registration that declares arguments or an attrs type is the op's definition.
    if (!args.length && !attrsType && own.numInputs === null && !viaMacro) {
      (extra[name] ??= []).push(file);
      return;
    }
    if (ops[name]) throw new Error(`${name} defined twice (${ops[name].file}, ${file})`);
    ops[name] = {
      numInputs: own.numInputs ?? viaMacro?.numInputs ?? args.length,
      args: args.map((a) => a.name),
      attrsType,
      attrs: attrsType ? (structs[attrsType] ?? null) : {},
      file,
    };
  });
}

const undefinedOps = Object.keys(extra).filter((n) => !ops[n]);
if (undefinedOps.length) throw new Error(`registered without a definition: ${undefinedOps.join(', ')}`);
const names = Object.keys(ops).sort();
const unknownAttrs = names.filter((n) => ops[n].attrs === null);
const lines = names.map((n) => `    ${JSON.stringify(n)}: ${JSON.stringify(ops[n])}`);
const out = `{
  "source": ${JSON.stringify({ repo: 'apache/tvm', commit, describe, files: 'src/relay/**, include/tvm/relay/attrs/*.h', script: 'scripts/target-schemas/relay.mjs' })},
  "ops": {
${lines.join(',\n')}
  }
}
`;
JSON.parse(out);
const target = fileURLToPath(new URL('../../generators/data/relay-ops.json', import.meta.url));
writeFileSync(target, out);
console.log(
  `${names.length} Relay ops, ${Object.keys(structs).length} attrs structs → ${target}` +
    (unknownAttrs.length ? `\nattrs struct not found for: ${unknownAttrs.join(', ')}` : ''),
);
