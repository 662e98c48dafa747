// Every emitter, in pipeline order: model in, files out.

import type { Model } from '../spec/model.ts';
import { emitApis } from './api.ts';
import { emitBridges } from './bridge.ts';
import { emitCoverage } from './coverage.ts';
import { emitCpuDialect } from './dialect-cpu.ts';
import { emitWasmDialect } from './dialect-wasm.ts';
import { emitWebgpuDialect } from './dialect-webgpu.ts';
import { emitDocs } from './docs.ts';
import type { EmittedFile } from './files.ts';
import { emitGrads } from './grad.ts';
import { emitOpIdLock, emitOpIds } from './op-ids.ts';
import { emitOnnx } from './onnx.ts';
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
  emitRelays,
  emitOnnx,
  emitRegistry,
  emitTests,
  emitOpIds,
  emitDocs,
];

export function emitAll(model: Model): { generated: EmittedFile[]; stubs: StubFile[] } {
  const generated = EMITTERS.flatMap((emit) => emit(model));
  const stubs = [...emitStubs(model), ...emitOpIdLock(model)];
  // The coverage matrix reports on what every other emitter produced, so it runs last.
  return { generated: [...generated, ...emitCoverage(model, [...generated, ...stubs])], stubs };
}
