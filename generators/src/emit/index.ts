// Every emitter, in pipeline order: model in, files out.

import type { Model } from '../spec/model.ts';
import { emitApis } from './api.ts';
import { emitBridges } from './bridge.ts';
import { emitCpuDialect } from './dialect-cpu.ts';
import type { EmittedFile } from './files.ts';
import { emitGrads } from './grad.ts';
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
  emitRelays,
  emitRegistry,
  emitTests,
];

export function emitAll(model: Model): { generated: EmittedFile[]; stubs: StubFile[] } {
  return { generated: EMITTERS.flatMap((emit) => emit(model)), stubs: emitStubs(model) };
}
