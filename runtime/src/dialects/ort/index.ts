// The ort dialect: ops with an ONNX mapping run as one-node models in onnxruntime-node, synchronously (docs/runtime.md).
// Registered on Node with onnxruntime-node installed; elsewhere the dialect is known but unavailable and has no ops.

import { registerDialect } from '../../dialect.ts';
import { ortMissing } from './load.ts';
import { ORT_DIALECT } from './policy.ts';

registerDialect({ name: ORT_DIALECT, devices: ['cpu'], unavailable: ortMissing });

export { ortDialectOp, ortStats, work as ortWork, type OrtOpSpec } from './kernel.ts';
export { ortMissing as ortUnavailable } from './load.ts';
export { ORT_DIALECT, ortLevel, ortMinWork } from './policy.ts';
