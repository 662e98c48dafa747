// `generator-raf-op/testing/onnx`: builds small ONNX models (one node, or a few) for a package's own tests and
// examples, e.g. to check that FromOnnx maps a node to the package's op once the package is imported.
export {
  buildModel,
  buildSingleNodeModel,
  singleNodeIoNames,
  type ModelSpec,
  type SingleNodeSpec,
} from '../../../test/support/onnx-proto.ts';
