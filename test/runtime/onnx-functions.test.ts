// Model-local functions (ONNX IR 8+, FunctionProto): calls of a function are inlined at import, with the call's inputs,
// outputs and attributes bound (ref_attr_name, the function's defaults), functions calling functions, and a body
// following its own opset import; each model is compared with onnxruntime-node, which runs the same functions.

import { describe, expect, it } from 'vitest';
import { randomUniform } from '../../runtime/src/index.ts';
import { execute } from '../../runtime/src/graph/index.ts';
import { fromOnnx } from '../../runtime/src/graph/frontends/from-onnx.ts';
import { buildModel, type FunctionSpec, type ModelSpec } from '../support/onnx-proto.ts';
import { runOnnxModel, toFloat64 } from '../support/onnx-oracle.ts';
import { assertAllClose } from '../support/assert.ts';

/** `y = LeakyRelu(x * scale + shift, alpha)`: alpha from the call, shift a default, scale an input. */
const AFFINE_ACT: FunctionSpec = {
  name: 'AffineAct',
  domain: 'local',
  inputs: ['x', 'scale'],
  outputs: ['y'],
  attributes: ['alpha'],
  defaults: { shift: { float: 0.5 } },
  nodes: [
    { op: 'Mul', inputs: ['x', 'scale'], outputs: ['t'] },
    { op: 'Constant', inputs: [], outputs: ['s'], attrs: { value_float: { ref: 'shift', type: 1 } } },
    { op: 'Add', inputs: ['t', 's'], outputs: ['u'] },
    { op: 'LeakyRelu', inputs: ['u'], outputs: ['y'], attrs: { alpha: { ref: 'alpha', type: 1 } } },
  ],
};

/** Calls AffineAct twice (a function calling a function), then Softmax on the last axis. */
const BLOCK: FunctionSpec = {
  name: 'Block',
  domain: 'local',
  inputs: ['x', 'scale'],
  outputs: ['y', 'h'],
  attributes: [],
  nodes: [
    { op: 'AffineAct', domain: 'local', inputs: ['x', 'scale'], outputs: ['h'], attrs: { alpha: { float: 0.1 } } },
    { op: 'AffineAct', domain: 'local', inputs: ['h', 'scale'], outputs: ['t'], attrs: { alpha: { float: 0.3 } } },
    { op: 'Softmax', inputs: ['t'], outputs: ['y'], attrs: { axis: -1 } },
  ],
};

async function agree(spec: ModelSpec): Promise<void> {
  const bytes = buildModel(spec);
  const x = randomUniform([2, 5], { seed: 7, low: -2, high: 2 });
  const ours = execute(fromOnnx(bytes), [x]);
  const theirs = await runOnnxModel(bytes, {
    x: { dtype: 'float32', shape: [2, 5], data: x.dataSync() as Float32Array },
  });
  expect(ours.length).toBe(theirs.length);
  ours.forEach((t, i) => {
    expect([...t.shape]).toEqual(theirs[i]!.shape);
    assertAllClose(
      Array.from(t.dataSync()),
      Array.from(toFloat64(theirs[i]!)),
      { atol: 1e-6, rtol: 1e-5 },
      `output ${i}`,
    );
  });
}

const scale = { name: 'scale', dtype: 'float32' as const, shape: [5], data: [0.5, -1, 2, 1.5, -0.25] };

describe('ONNX model-local functions vs onnxruntime-node', () => {
  it('inlines calls with bound attributes, defaults, nested calls, and two calls of one function', async () => {
    await agree({
      nodes: [
        { op: 'Block', domain: 'local', inputs: ['x', 'scale'], outputs: ['y', 'h'], name: 'b0' },
        {
          op: 'AffineAct',
          domain: 'local',
          inputs: ['y', 'scale'],
          outputs: ['z'],
          attrs: { alpha: { float: 0.2 }, shift: { float: -1 } },
        },
      ],
      inputs: [{ name: 'x', dtype: 'float32', shape: [2, 5] }],
      outputs: [{ name: 'z' }, { name: 'h' }],
      initializers: [scale],
      functions: [AFFINE_ACT, BLOCK],
    });
  });

  it('names the call in its refusals: an undeclared attribute, a function calling itself', () => {
    const undeclared = buildModel({
      nodes: [
        {
          op: 'AffineAct',
          domain: 'local',
          inputs: ['x', 'scale'],
          outputs: ['y'],
          attrs: { alpha: { float: 0.2 }, beta: 1 },
          name: 'call0',
        },
      ],
      inputs: [{ name: 'x', dtype: 'float32', shape: [2, 5] }],
      outputs: [{ name: 'y' }],
      initializers: [scale],
      functions: [AFFINE_ACT],
    });
    expect(() => fromOnnx(undeclared)).toThrow(
      "FromOnnx node 'call0' (a call of function 'local.AffineAct'): attribute 'beta' is not one the function declares (alpha, shift)",
    );
    const loop = buildModel({
      nodes: [{ op: 'Again', domain: 'local', inputs: ['x'], outputs: ['y'], name: 'call1' }],
      inputs: [{ name: 'x', dtype: 'float32', shape: [2, 5] }],
      outputs: [{ name: 'y' }],
      functions: [
        {
          name: 'Again',
          domain: 'local',
          inputs: ['a'],
          outputs: ['b'],
          nodes: [{ op: 'Again', domain: 'local', inputs: ['a'], outputs: ['b'] }],
        },
      ],
    });
    expect(() => fromOnnx(loop)).toThrow(
      'the function calls itself (local.Again -> local.Again); ONNX forbids recursion',
    );
  });
});
