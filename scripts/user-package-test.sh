#!/usr/bin/env bash
# End to end, as an operator author outside this repository (issue 16): pack both packages, `npx raf-op init` in an
# empty folder, scaffold an elementwise op and an op with a hand-written kernel whose gradient names a built-in op,
# run the package's generated tests against the installed runtime, then a script that imports the package and runs
# its ops eagerly, under grad and in a traced graph.
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
done_step

step "scaffold an elementwise op: kernel, gradient and tests all generated"
run npm run new -- my_swish --compute "x * sigmoid(x)" --yes
done_step

step "scaffold an op with a hand-written CPU kernel whose gradient names the built-in op multiply"
run npm run new -- my_scaled_cube --category math --doc "alpha * x cubed, with a hand-written kernel" \
  --args "x: Tensor, alpha: float = 1" --out "same(x)" --grad "x: multiply(dy, x * x * alpha * 3)" --saves x \
  --fusion opaque --cast never --relay none --onnx none --dialects cpu=10 --grid "{ alpha: [1, 0.5] }" --yes
# The forward oracle: a formula over built-in ops (the spec is the author's to edit).
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

step "type-check the package (tsc over src/, test/ and examples/)"
mkdir -p examples
cat > examples/use.ts <<'EOF'
// Uses the package as a consumer would: import it, then run its ops eagerly, under grad and in a traced graph,
// each checked against plain-JS math.
import assert from 'node:assert/strict';
import { autoCast, execute, fuseOps, grad, graph, tensor, type Tensor } from '@raf-op/runtime';
import { ops } from 'my-ops';

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
EOF
run npx tsc --noEmit
done_step

step "a script imports the package and runs its ops eagerly, under grad and in a traced graph"
run npx tsx examples/use.ts
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
