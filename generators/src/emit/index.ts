// Every emitter, in pipeline order: model in, files out.

import type { Model } from '../spec/model.ts';
import { GENERATED } from '../layout.ts';
import { emitApis } from './api.ts';
import { emitBridges } from './bridge.ts';
import { emitCoverage } from './coverage.ts';
import { emitCpuDialect } from './dialect-cpu.ts';
import { emitWasmDialect } from './dialect-wasm.ts';
import { emitWebgpuDialect } from './dialect-webgpu.ts';
import { emitOrtDialect } from './dialect-ort.ts';
import { emitDocs } from './docs.ts';
import { emitFormulaReference } from './formula-docs.ts';
import { emitSpecReference } from './spec-docs.ts';
import type { EmittedFile } from './files.ts';
import { emitGrads } from './grad.ts';
import { emitOpIdLock, emitOpIds } from './op-ids.ts';
import { emitOnnx } from './onnx.ts';
import {
  emitBridgeIndex,
  emitBuiltinSpecs,
  emitOverrides,
  emitRegister,
  emitSchemaIndex,
  ownModel,
  relocate,
} from './package.ts';
import { emitPasses } from './passes.ts';
import { emitRegistry } from './registry.ts';
import { emitRelays } from './relay.ts';
import { emitSchemas } from './schema.ts';
import { emitStubs, type StubFile } from './stubs.ts';
import { emitTests } from './tests.ts';
import { emitTypes } from './type.ts';

export const EMITTERS: readonly ((model: Model) => EmittedFile[])[] = [
  emitSchemas,
  emitTypes,
  emitGrads,
  emitPasses,
  emitApis,
  emitBridges,
  emitCpuDialect,
  emitWasmDialect,
  emitWebgpuDialect,
  emitOrtDialect,
  emitRelays,
  emitOnnx,
  emitRegistry,
  emitTests,
  emitOpIds,
  emitDocs,
];

export function emitAll(
  full: Model,
  opts: { readonly releasedOpIds?: () => ReadonlySet<string> } = {},
): { generated: EmittedFile[]; stubs: StubFile[] } {
  // In a user's package the model also holds the installed runtime's ops (for references); only the user's are emitted.
  const model = ownModel(full);
  const generated = EMITTERS.flatMap((emit) => emit(model));
  const stubs = [...emitStubs(model), ...emitOpIdLock(model, opts.releasedOpIds)];
  // The coverage matrix reports on what every other emitter produced, so it runs last.
  const all = { generated: [...generated, ...emitCoverage(model, [...generated, ...stubs])], stubs };
  if (!full.builtin)
    return {
      ...all,
      generated: [
        ...all.generated,
        ...emitSchemaIndex(full),
        ...emitBridgeIndex(full),
        ...emitBuiltinSpecs(full),
        ...emitFormulaReference(full),
        ...emitSpecReference(full),
      ],
    };
  // wasm kernels are compiled into the runtime's binary: a package has none (its specs may not name the dialect).
  // Nor the ort dialect's index: it registers the runtime's own ops (a package's run on cpu/wasm/webgpu).
  all.generated = all.generated.filter(
    (f) => !f.path.startsWith(`${GENERATED}/dialects/wasm/`) && !f.path.startsWith(`${GENERATED}/dialects/ort/`),
  );
  const overrides = emitOverrides(full);
  all.generated.push(...overrides.generated, emitRegister(full.overrides));
  all.stubs.push(...overrides.stubs);
  const owned = new Set([...all.generated, ...all.stubs].map((f) => f.path));
  return { generated: relocate(all.generated, owned), stubs: relocate(all.stubs, owned) };
}
