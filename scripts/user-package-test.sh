#!/usr/bin/env bash
# End to end, as an operator author outside this repository (issues 16, 44): first every `sh` block of
# docs/package.md, verbatim and in order, in a temporary folder where this checkout is `raf-op` (pack both packages,
# `raf-op init --from` the tarballs, npm install, scaffold an op, its tests, `npm run build`, plain `node use.mjs`,
# `raf-op diff` before the first commit, `raf-op breaking`). Then, in the package it made: an op with a hand-written
# kernel whose gradient names a built-in op; `gen` warning about a kernel that ignores a new arg; a refused scaffold
# flag (a message, no stack trace) and `--resume` keeping every flag; an op with an ONNX mapping (its generated test
# runs onnxruntime-node, an optional dependency with its install script skipped) that FromOnnx maps to; an
# `overrides: true` spec giving the built-in relu a CPU kernel of the package's own; typecheck; a script using the
# built package eagerly, under grad and in a traced graph; diff and breaking against a commit.
#
#   bash scripts/user-package-test.sh        (npm run test:package)
#
# Leaves its work folder (printed first) for inspection; RAF_KEEP=0 removes it on success.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
WORK=$(mktemp -d "${TMPDIR:-/tmp}/raf-op-user-package.XXXXXX")
echo "work folder: $WORK"
export npm_config_loglevel=error npm_config_fund=false npm_config_audit=false npm_config_update_notifier=false

T0=$SECONDS
step() {
  STEP_START=$SECONDS
  echo
  echo "=== $* ==="
}
done_step() { echo "--- $((SECONDS - STEP_START)) s (total $((SECONDS - T0)) s)"; }
run() {
  echo "\$ $*"
  "$@"
}
# No stack trace in a command's output (a refusal is a message).
no_stack() {
  if grep -nE '^\s+at .*(\.js|\.ts|\.mjs|node:)' "$1"; then
    echo "error: a stack trace in $1 (above)" >&2
    exit 1
  fi
}

step "docs/package.md, every sh block verbatim, in $WORK (raf-op -> this checkout)"
ln -s "$ROOT" "$WORK/raf-op"
rm -rf "$ROOT/packs"
# The blocks, in order, as one script (a heredoc inside a block stays whole).
node -e '
  const text = require("fs").readFileSync(process.argv[1], "utf8");
  const blocks = [...text.matchAll(/^```sh\n([\s\S]*?)^```$/gm)].map((m) => m[1]);
  if (blocks.length < 4) throw new Error(`docs/package.md: expected its sh blocks, found ${blocks.length}`);
  process.stdout.write(blocks.join(""));
' "$ROOT/docs/package.md" > "$WORK/package-md.sh"
(cd "$WORK" && bash -euo pipefail -x "$WORK/package-md.sh") 2>&1 | tee "$WORK/package-md.log"
no_stack "$WORK/package-md.log"
cd "$WORK/my-ops"
# What the page promises: the tarballs installed, onnxruntime-node without its CUDA download, plain node ran the op.
grep -q '"@raf-op/runtime": "file:../raf-op/packs/raf-op-runtime-' package.json
test -f node_modules/onnxruntime-node/package.json
if ls node_modules/onnxruntime-node/bin/napi-v*/linux/x64/ 2>/dev/null | grep -qi cuda; then
  echo "error: onnxruntime-node's install script ran (CUDA parts downloaded)" >&2
  exit 1
fi
if grep -q "npm warn" "$WORK/package-md.log"; then
  echo "error: npm printed a warning (above)" >&2
  exit 1
fi
node -e '
  const log = require("fs").readFileSync(process.argv[1], "utf8");
  const read = (label) => {
    const m = new RegExp(`^${label}: (.*)$`, "m").exec(log);
    if (!m) throw new Error(`use.mjs printed no ${label} line`);
    return m[1].split(",").map(Number);
  };
  const xs = [-1, 0.5, 2], sig = (v) => 1 / (1 + Math.exp(-v));
  const want = { "my_swish": xs.map((v) => v * sig(v)), gradient: xs.map((v) => sig(v) + v * sig(v) * (1 - sig(v))) };
  for (const [label, w] of Object.entries(want)) {
    const got = read(label);
    w.forEach((v, i) => { if (!(Math.abs(got[i] - v) < 1e-12)) throw new Error(`${label}[${i}] = ${got[i]}, expected ${v}`); });
    console.log(`ok  node use.mjs: ${label} matches plain-JS math`);
  }
' "$WORK/package-md.log"
grep -q "no commit yet: an empty base" "$WORK/package-md.log"
done_step

step "scaffold an op with a hand-written CPU kernel whose gradient names the built-in op multiply"
run npm run new -- my_scaled_cube --category math --doc "alpha * x cubed, with a hand-written kernel" \
  --args "x: Tensor, alpha: float = 1" --out "same(x)" --grad "x: 3 * alpha * multiply(dy, x * x)" --saves x \
  --fusion opaque --cast never --relay none --onnx none --dialects cpu=10 --grid "{ alpha: [1, 0.5] }" --yes
# The forward oracle: a formula over built-in ops (the spec is the author's to edit). The gradient starts with two
# numbers (3 * alpha), a weak scalar that takes x's dtype: opcheck's float64 gradcheck runs it.
sed -i 's/^  grid: { alpha: \[1, 0.5\] }$/&\n  oracle: alpha * x * x * x/' specs/math/my_scaled_cube.yaml
cat > src/dialects/cpu/kernels/my_scaled_cube.ts <<'EOF'
// CPU kernel of raf.op.my_scaled_cube: alpha * x³, written by hand.
import { allocOut, finish } from '@raf-op/runtime/extend';
import type { MyScaledCubeKernel } from '../../../generated/bridge/my_scaled_cube.ts';

export const myScaledCubeCpu: MyScaledCubeKernel = ({ x }, { alpha }, out) => {
  const y = allocOut(out);
  const ys = y.dataSync();
  const xs = x.dataSync();
  for (let i = 0; i < ys.length; i++) ys[i] = alpha * xs[i]! * xs[i]! * xs[i]!;
  return finish(y);
};
EOF
cat specs/math/my_scaled_cube.yaml
run npm run gen
run npm run gen -- --check
done_step

step "gen in the package warns about a kernel that ignores a new arg (as in the repository); --check fails on it"
cp specs/math/my_scaled_cube.yaml "$WORK/my_scaled_cube.yaml"
sed -i 's/^  alpha: { type: float, default: 1 }$/&\n  beta: { type: float, default: 0 }/' specs/math/my_scaled_cube.yaml
grep -q "beta:" specs/math/my_scaled_cube.yaml
npm run --silent gen > "$WORK/new-arg.log" 2>&1
cat "$WORK/new-arg.log"
grep -q "warning: the cpu kernel of my_scaled_cube (src/dialects/cpu/kernels/my_scaled_cube.ts) never reads attr 'beta'" "$WORK/new-arg.log"
if npm run --silent gen -- --check > "$WORK/new-arg-check.log" 2>&1; then
  echo "error: gen --check accepted a kernel that ignores beta" >&2
  exit 1
fi
grep -q "error: the cpu kernel of my_scaled_cube" "$WORK/new-arg-check.log"
cp "$WORK/my_scaled_cube.yaml" specs/math/my_scaled_cube.yaml
run npm run gen
done_step

step "a refused scaffold flag prints a message (no stack trace); --resume keeps every flag, those after it too"
if npm run --silent new -- my_refused --compute "x * x" --fusion sideways --shapes "[[2, 5]]" --yes > "$WORK/refused.log" 2>&1; then
  echo "error: a bad --fusion was accepted" >&2
  exit 1
fi
cat "$WORK/refused.log"
grep -q -- "--fusion" "$WORK/refused.log"
no_stack "$WORK/refused.log"
test ! -e specs/math/my_refused.yaml
run npm run new -- my_refused --fusion elemwise --resume --yes
grep -q "\[2, 5\]" specs/math/my_refused.yaml
done_step

step "scaffold an op with an ONNX mapping: its generated test runs onnxruntime-node's Softsign"
run npm run new -- my_softsign --compute "x / (1 + abs(x))" --onnx Softsign --yes
done_step

step "overrides: true gives the built-in op relu a CPU kernel of the package's own, at level 30"
mkdir -p specs/nn
cat > specs/nn/relu.yaml <<'EOF'
op: relu
overrides: true
doc: relu by a loop of our own, which counts its calls.
dialects: { cpu: 30 }
EOF
run npm run gen
cat > src/dialects/cpu/kernels/relu.ts <<'EOF'
// my-ops' CPU kernel of the built-in raf.op.relu (specs/nn/relu.yaml says overrides: true), written by hand.
import { allocOut, finish, type ReluKernel } from '@raf-op/runtime/extend';

/** How many times dispatch chose this kernel. */
export const reluCalls = { n: 0 };

export const reluCpu: ReluKernel = ({ x }, _attrs, out) => {
  reluCalls.n++;
  const y = allocOut(out);
  const ys = y.dataSync();
  const xs = x.dataSync();
  for (let i = 0; i < ys.length; i++) ys[i] = xs[i]! > 0 ? xs[i]! : 0;
  return finish(y);
};
EOF
cat src/generated/overrides/relu.ts
run npm run gen -- --check
done_step

step "an override that redefines the op, or outranks nothing, is refused at its file:line:col"
cp specs/nn/relu.yaml "$WORK/relu.yaml"
printf 'op: relu\noverrides: true\nout: same(x)\ndialects: { cpu: 12 }\n' > specs/nn/relu.yaml
if npm run --silent gen > "$WORK/override.log" 2>&1; then
  echo "error: gen accepted a bad override" >&2
  exit 1
fi
cat "$WORK/override.log"
grep -q "specs/nn/relu.yaml:3:1: error: an override only adds a kernel: 'out' would change the built-in op 'relu'" "$WORK/override.log"
grep -q "specs/nn/relu.yaml:4:18: error: level 12 does not outrank the built-in wasm kernel of 'relu' (level 15)" "$WORK/override.log"
cp "$WORK/relu.yaml" specs/nn/relu.yaml
run npm run gen -- --check
done_step

step "nothing in the package imports a runtime file by path"
if grep -rnE "from '(\.\./)+(runtime|node_modules)/" src test; then
  echo "error: relative imports of the runtime (above)" >&2
  exit 1
fi
grep -rhoE "from '@raf-op/runtime[^']*'|from 'generator-raf-op[^']*'" src test | sort | uniq -c
done_step

step "a spec named like a built-in op is refused at its op: line, and nothing is written"
mkdir -p specs/nn && printf 'op: softmax\ndoc: Mine.\nargs:\n  x: { type: Tensor }\nout: same(x)\ndialects: { cpu: 10 }\n' > specs/nn/softmax.yaml
if npm run --silent gen > "$WORK/collision.log" 2>&1; then
  echo "error: gen accepted an op named softmax" >&2
  exit 1
fi
cat "$WORK/collision.log"
grep -q "specs/nn/softmax.yaml:1:5: error: op 'softmax' is a built-in op of @raf-op/runtime" "$WORK/collision.log"
rm specs/nn/softmax.yaml
run npm run gen -- --check
done_step

step "the package's generated tests, against the installed runtime"
run npm test
done_step

step "the ONNX oracle tests ran, none skipped: my_softsign and the relu override against onnxruntime"
npx vitest run test/generated/my_softsign.test.ts test/generated/relu.test.ts --reporter=verbose > "$WORK/onnx-oracle.log" 2>&1 || {
  cat "$WORK/onnx-oracle.log"
  exit 1
}
grep -E "onnxruntime|Tests " "$WORK/onnx-oracle.log"
grep -qE "forward .* vs onnxruntime Softsign" "$WORK/onnx-oracle.log"
grep -qE "forward .* vs onnxruntime Relu" "$WORK/onnx-oracle.log"
if grep -E "onnxruntime" "$WORK/onnx-oracle.log" | grep -qv "✓"; then
  echo "error: an ONNX oracle test was skipped or failed (above)" >&2
  exit 1
fi
done_step

step "type-check the package (tsc over src/, test/ and examples/)"
mkdir -p examples
cat > examples/use.ts <<'EOF'
// Uses the package as a consumer would: import it, then run its ops eagerly, under grad and in a traced graph,
// each checked against plain-JS math.
import assert from 'node:assert/strict';
import { allDialectOps, autoCast, execute, fuseOps, grad, graph, ops as core, tensor, withDialect, type Tensor } from '@raf-op/runtime';
import { fromOnnx } from '@raf-op/runtime/onnx';
import { buildSingleNodeModel } from 'generator-raf-op/testing/onnx';
import { ops } from 'my-ops';
import { reluCalls } from '../dist/dialects/cpu/kernels/relu.js';

const xs = [-1, 0.5, 2];
const sig = (v: number) => 1 / (1 + Math.exp(-v));
const close = (got: ArrayLike<number>, want: number[], what: string) => {
  want.forEach((w, i) => assert.ok(Math.abs(got[i]! - w) < 1e-9 * (1 + Math.abs(w)), `${what}[${i}]: ${got[i]} vs ${w}`));
  console.log(`ok  ${what} = [${Array.from(got, (v) => v.toFixed(6)).join(', ')}]`);
};

const x = tensor([xs], { dtype: 'float64' });
close(ops.myScaledCube(x, 2).dataSync(), xs.map((v) => 2 * v ** 3), 'eager my_scaled_cube(x, 2)');
close(ops.mySwish(x).dataSync(), xs.map((v) => v * sig(v)), 'eager my_swish(x)');
const [dCube] = grad((x: Tensor) => ops.myScaledCube(x, 2))(x);
close(dCube!.dataSync(), xs.map((v) => 6 * v ** 2), 'grad d/dx sum(my_scaled_cube(x, 2))');
const [dSwish] = grad((x: Tensor) => ops.mySwish(x))(x);
close(dSwish!.dataSync(), xs.map((v) => sig(v) + v * sig(v) * (1 - sig(v))), 'grad d/dx sum(my_swish(x))');

const g = graph.trace((x: Tensor) => ops.mySwish(ops.myScaledCube(x, 0.5)), [
  { name: 'x', shape: [1, 3], dtype: 'float64' },
]);
console.log(graph.printGraph(g));
const want = xs.map((v) => 0.5 * v ** 3).map((u) => u * sig(u));
close(execute(g, [x])[0]!.dataSync(), want, 'graph my_swish(my_scaled_cube(x, 0.5))');
close(execute(fuseOps(autoCast(g)), [x])[0]!.dataSync(), want, 'graph after autoCast + fuseOps');
const backward = graph.autodiff(g);
console.log(`autodiff: the backward graph has ${backward.nodes.length} nodes`);

// FromOnnx: a Softsign node becomes the package's my_softsign (its onnx: mapping registers on import, before the
// runtime's own softsign).
const softsign = xs.map((v) => v / (1 + Math.abs(v)));
close(ops.mySoftsign(x).dataSync(), softsign, 'eager my_softsign(x)');
const model = buildSingleNodeModel({ op: 'Softsign', opset: 17, inputs: [{ dtype: 'float64', shape: [1, 3], data: [] }] });
const imported = fromOnnx(model);
console.log(graph.printGraph(imported));
assert.deepEqual(imported.nodes.map((n) => ('op' in n ? n.op.name : n.kind)), ['my_softsign']);
close(execute(imported, [x])[0]!.dataSync(), softsign, 'FromOnnx Softsign, run as my_softsign');

// The override: dispatch picks the package's relu kernel (level 30) over the built-in ones; the built-in cpu kernel
// is still there (pinned with withDialect), as is the op's own gradient.
console.log(`relu's dialect ops: ${allDialectOps('relu').map((d) => `${d.dialect}@${d.level}`).join(', ')}`);
const relu = xs.map((v) => Math.max(v, 0));
const before = reluCalls.n;
close(core.relu(x).dataSync(), relu, 'eager relu(x), by the my-ops:cpu kernel');
assert.equal(reluCalls.n, before + 1);
close(withDialect(['cpu'], () => core.relu(x)).dataSync(), relu, "relu(x) pinned to the runtime's cpu dialect");
assert.equal(reluCalls.n, before + 1);
const [dRelu] = grad((x: Tensor) => core.relu(x))(x);
close(dRelu!.dataSync(), xs.map((v) => (v > 0 ? 1 : 0)), "grad d/dx sum(relu(x)), the built-in op's gradient");
assert.equal(reluCalls.n, before + 2);
console.log(`my-ops:cpu relu kernel calls: ${reluCalls.n}`);
EOF
cat > examples/without.ts <<'EOF'
// The runtime alone, my-ops not imported: relu has only its built-in dialect ops, and FromOnnx imports Softsign as the
// runtime's own softsign (with my-ops imported, the package's mapping comes first: use.ts).
import assert from 'node:assert/strict';
import { allDialectOps, ops, tensor } from '@raf-op/runtime';
import { fromOnnx } from '@raf-op/runtime/onnx';
import { buildSingleNodeModel } from 'generator-raf-op/testing/onnx';

const dialects = allDialectOps('relu').map((d) => `${d.dialect}@${d.level}`);
console.log(`relu's dialect ops without my-ops: ${dialects.join(', ')}`);
assert.ok(!dialects.some((d) => d.startsWith('my-ops:')));
assert.deepEqual(Array.from(ops.relu(tensor([[-1, 2]])).dataSync()), [0, 2]);
const model = buildSingleNodeModel({ op: 'Softsign', opset: 17, inputs: [{ dtype: 'float32', shape: [1, 2], data: [] }] });
const imported = fromOnnx(model);
assert.deepEqual(imported.nodes.map((n) => ('op' in n ? n.op.name : n.kind)), ['softsign']);
console.log("ok  without my-ops, FromOnnx imports Softsign as the runtime's softsign");
EOF
# `import 'my-ops'` loads dist/: built after the last scaffold and gen.
run npm run build
run npx tsc --noEmit
done_step

step "a script imports the package and runs its ops eagerly, under grad and in a traced graph"
run npx tsx examples/use.ts
run npx tsx examples/without.ts
done_step

step "review tools in the package: diff and breaking against git HEAD"
git add -A && git -c user.name=ci -c user.email=ci@example.invalid commit -qm "more ops"
sed -i 's/^doc: alpha \* x cubed.*/doc: alpha times x cubed./; s/alpha: { type: float, default: 1 }/alpha: { type: float, default: 2 }/' \
  specs/math/my_scaled_cube.yaml
run npm run --silent diff -- --summary
echo "\$ npm run --silent breaking   (must fail: alpha's default changed)"
if npm run --silent breaking; then
  echo "error: breaking accepted a changed default" >&2
  exit 1
fi
git checkout -q -- specs
done_step

echo
echo "user package test passed in $((SECONDS - T0)) s"
if [[ "${RAF_KEEP:-1}" == "0" ]]; then rm -rf "$WORK"; fi
