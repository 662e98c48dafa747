// `@raf-op/runtime/onnx`: importing ONNX models (fromOnnx to a graph, loadOnnx to a session run by input name) and
// running them (greedy decoding for causal language models). It loads the runtime (ops and dialects) as the main entry does.

import './index.ts';

export { fromOnnx, type FromOnnxOptions } from './graph/frontends/from-onnx.ts';
export { loadOnnx, OnnxSession, type OnnxSessionOptions, type OnnxValue } from './graph/onnx/session.ts';
export { OnnxMaps, OnnxOptional, OnnxSequence } from './graph/onnx/containers.ts';
export { initOnnx } from './graph/onnx/proto.ts';
export { generateGreedy, type GreedyOptions } from './graph/onnx/generate.ts';
export { NARROW_FORMATS, carrierOf, packFormat, unpackFormat, type NarrowFormat } from './formats.ts';
export { stringTensor, stringsOf, isStringTensor } from './strings.ts';
