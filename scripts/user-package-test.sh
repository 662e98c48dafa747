#!/usr/bin/env bash
# End to end, as an operator author outside this repository (issue 16): pack both packages, `npx raf-op init` in an
# empty folder, scaffold an elementwise op and an op with a hand-written kernel whose gradient names a built-in op,
# run the package's generated tests against the installed runtime, then a script that imports the package and runs
# its ops eagerly, under grad and in a traced graph. Also: an op with an ONNX mapping (its generated test runs
# onnxruntime-node, an optional dependency `raf-op init` adds with its install script skipped) that FromOnnx maps to
# once the package is imported, and an `overrides: true` spec that gives the built-in relu a CPU kernel of the
# package's own (dispatch picks it while the package is imported; the runtime alone is untouched).
#
#   bash scripts/user-package-test.sh [--packs DIR]    # DIR: reuse raf-op-runtime-*.tgz and generator-raf-op-*.tgz
#
# Leaves its work folder (printed first) for inspection; RAF_KEEP=0 removes it on success.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
WORK=$(mktemp -d "${TMPDIR:-/tmp}/raf-op-user-package.XXXXXX")
PACKS="$WORK/packs"
if [[ "${1:-}" == "--packs" ]]; then PACKS=$(cd "$2" && pwd); fi
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

if [[ "$PACKS" == "$WORK/packs" ]]; then
  step "pack @raf-op/runtime and generator-raf-op (prepack builds dist/)"
  mkdir -p "$PACKS"
  (cd "$ROOT/runtime" && run npm pack --silent --pack-destination "$PACKS")
  (cd "$ROOT/generators" && run npm pack --silent --pack-destination "$PACKS")
  done_step
fi
RUNTIME_TGZ=$(ls "$PACKS"/raf-op-runtime-*.tgz)
GENERATOR_TGZ=$(ls "$PACKS"/generator-raf-op-*.tgz)
ls -l "$RUNTIME_TGZ" "$GENERATOR_TGZ"

step "npx raf-op init my-ops, in an empty folder"
mkdir "$WORK/empty" && cd "$WORK/empty"
run npx --yes --package="$GENERATOR_TGZ" raf-op init my-ops
cd my-ops
done_step

step "npm install (the packed tarballs in place of the registry's versions)"
# The package asks for ^0.1.0 of both; until they are published, point them at the tarballs.
node -e '
  const fs = require("fs");
  const p = JSON.parse(fs.readFileSync("package.json", "utf8"));
  p.dependencies["@raf-op/runtime"] = "file:" + process.argv[1];
  p.devDependencies["generator-raf-op"] = "file:" + process.argv[2];
  fs.writeFileSync("package.json", JSON.stringify(p, null, 2) + "\n");
' "$RUNTIME_TGZ" "$GENERATOR_TGZ"
run npm install
# onnxruntime-node (optional dependency) is there, and its install script (a CUDA download) did not run.
node -e 'const p = require("./package.json"); console.log("optionalDependencies:", JSON.stringify(p.optionalDependencies), " allowScripts:", JSON.stringify(p.allowScripts))'
test -f node_modules/onnxruntime-node/package.json
if ls node_modules/onnxruntime-node/bin/napi-v*/linux/x64/ 2>/dev/null | grep -qi cuda; then
  echo "error: onnxruntime-node's install script ran (CUDA parts downloaded)" >&2
  exit 1
fi
done_step

step "scaffold an elementwise op: kernel, gradient and tests all generated"
run npm run new -- my_swish --compute "x * sigmoid(x)" --yes
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
import { reluCalls } from '../src/dialects/cpu/kernels/relu.ts';

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
run npx tsc --noEmit
done_step

step "a script imports the package and runs its ops eagerly, under grad and in a traced graph"
run npx tsx examples/use.ts
run npx tsx examples/without.ts
done_step

step "review tools in the package: diff and breaking against git HEAD"
git init -q && git add -A && git -c user.name=ci -c user.email=ci@example.invalid commit -qm "my-ops"
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
