// safetensors and training checkpoints: a bit-exact round trip of every dtype (NaN payloads, -0 and subnormals
// included), the byte layout the format specifies, malformed files refused, and a checkpoint that does not match the
// model refused naming the tensor, with nothing changed.

import { describe, expect, it } from 'vitest';
import { DTYPES, tensor, train, type DType, type Tensor } from '../../runtime/src/index.ts';

const VALUES: Record<DType, number[]> = {
  float64: [0, -0, 1.5, -2.25e300, 5e-324, NaN, Infinity, -Infinity, Math.PI],
  float32: [0, -0, 1.5, -3.4e38, 1.4e-45, NaN, Infinity, Math.fround(Math.PI)],
  float16: [0, -0, 1.5, -65504, 2 ** -24, 6.103515625e-5, NaN, Infinity, 0.333251953125],
  bfloat16: [0, -0, 1.5, -3.3895313892515355e38, 9.183549615799121e-41, NaN, -Infinity, 3.140625],
  int64: [0, -1, 2 ** 53 - 1, -(2 ** 53 - 1), 42],
  int32: [0, -1, 2147483647, -2147483648],
  int16: [0, -1, 32767, -32768],
  int8: [0, -1, 127, -128],
  uint64: [0, 1, 2 ** 53 - 1],
  uint32: [0, 1, 4294967295],
  uint16: [0, 65535],
  uint8: [0, 255],
  bool: [0, 1, 1, 0],
};

function bits(t: Tensor): string {
  const a = t.dataSync();
  return Array.from(a, (v) => (Object.is(v, -0) ? '-0' : Number.isNaN(v) ? 'NaN' : String(v))).join(',');
}

describe('safetensors', () => {
  it('round-trips every dtype bit-exactly, in order, with metadata', async () => {
    const tensors: Record<string, Tensor> = {};
    for (const d of DTYPES) tensors[`t_${d}`] = tensor(VALUES[d], { dtype: d });
    tensors.scalar = tensor(7, { dtype: 'float64' });
    tensors.empty = tensor([], { dtype: 'float32', shape: [0, 3] });
    const bytes = await train.saveSafetensors(tensors, { note: 'hello' });
    const { tensors: back, metadata } = train.loadSafetensors(bytes);
    expect(metadata).toEqual({ note: 'hello' });
    expect(Object.keys(back)).toEqual(Object.keys(tensors));
    for (const [name, t] of Object.entries(tensors)) {
      expect(back[name]!.dtype, name).toBe(t.dtype);
      expect(back[name]!.shape, name).toEqual(t.shape);
      expect(bits(back[name]!), name).toBe(bits(t));
    }
    // The bytes of float64 values survive exactly.
    const f = tensor([1.1, -0], { dtype: 'float64' });
    const again = train.loadSafetensors(await train.saveSafetensors({ f })).tensors.f!;
    expect(new Uint8Array(again.dataSync().buffer)).toEqual(new Uint8Array(f.dataSync().buffer));
  });

  it('writes the layout the format specifies: u64 LE header length, JSON header, 8-byte aligned LE data', async () => {
    const bytes = await train.saveSafetensors({
      a: tensor([1, 2], { dtype: 'int32' }),
      b: tensor([0.5], { dtype: 'float16' }),
    });
    const n = Number(new DataView(bytes.buffer).getBigUint64(0, true));
    expect((8 + n) % 8).toBe(0);
    const header = JSON.parse(new TextDecoder().decode(bytes.subarray(8, 8 + n)));
    expect(header).toEqual({
      a: { dtype: 'I32', shape: [2], data_offsets: [0, 8] },
      b: { dtype: 'F16', shape: [1], data_offsets: [8, 10] },
    });
    // 1, 2 as little-endian int32, then 0.5 as float16 (0x3800).
    expect(Array.from(bytes.subarray(8 + n))).toEqual([1, 0, 0, 0, 2, 0, 0, 0, 0x00, 0x38]);
    // IEEE half and bfloat16 bit patterns (numpy.float16(v).view(numpy.uint16), and the top half of float32's bits).
    const h = await train.saveSafetensors({ h: tensor([65504, 2 ** -24, 2 ** -14, -0, -2], { dtype: 'float16' }) });
    const hn = Number(new DataView(h.buffer).getBigUint64(0, true));
    expect(Array.from(new Uint16Array(h.slice(8 + hn).buffer))).toEqual([0x7bff, 0x0001, 0x0400, 0x8000, 0xc000]);
    const bf = await train.saveSafetensors({ b: tensor([1.5, -2, 2 ** -130], { dtype: 'bfloat16' }) });
    const bn = Number(new DataView(bf.buffer).getBigUint64(0, true));
    expect(Array.from(new Uint16Array(bf.slice(8 + bn).buffer))).toEqual([0x3fc0, 0xc000, 0x0008]);
  });

  it('refuses malformed files saying what is wrong', async () => {
    const good = await train.saveSafetensors({ w: tensor([1, 2, 3], { dtype: 'float32' }) });
    expect(() => train.loadSafetensors(good.subarray(0, 5))).toThrow(/too short/);
    expect(() => train.loadSafetensors(good.subarray(0, good.length - 1))).toThrow(
      /tensor 'w': ends at byte 12, past the 11 data bytes/,
    );
    const bad = good.slice();
    bad[8] = 0x5b; // '[' : the header is no longer an object
    expect(() => train.loadSafetensors(bad)).toThrow(/not valid JSON|must be a JSON object/);
    const huge = good.slice();
    new DataView(huge.buffer).setBigUint64(0, 1000n, true);
    expect(() => train.loadSafetensors(huge)).toThrow(/header length 1000 exceeds/);
  });
});

describe('checkpoints', () => {
  const params = () => ({
    w: tensor(
      [
        [0.1, -0.2],
        [0.3, 0.4],
      ],
      { dtype: 'float64' },
    ),
    b: tensor([0.01, -0.02], { dtype: 'float64' }),
  });
  const grads = (k: number) => ({
    w: tensor(
      [
        [k, -1],
        [0.5, 2 * k],
      ],
      { dtype: 'float64' },
    ),
    b: tensor([1 / k, -k], { dtype: 'float64' }),
  });

  it('save, load into a fresh optimizer, continue: bit-identical to an uninterrupted run', async () => {
    const a = train.adam(params(), { lr: 0.05, amsgrad: true });
    for (let k = 1; k <= 3; k++) a.step(grads(k));
    const bytes = await train.saveCheckpoint(a);
    const b = train.adam(params(), { lr: 0.05, amsgrad: true });
    train.loadCheckpoint(b, bytes);
    expect(b.state.step).toBe(3);
    for (const n of ['w', 'b']) {
      expect(bits(b.params[n]!)).toBe(bits(a.params[n]!));
      for (const buf of b.bufferNames) expect(bits(b.state.buffers[buf]![n]!)).toBe(bits(a.state.buffers[buf]![n]!));
    }
    for (let k = 4; k <= 6; k++) {
      a.step(grads(k));
      b.step(grads(k));
    }
    for (const n of ['w', 'b']) expect(bits(b.params[n]!)).toBe(bits(a.params[n]!));
  });

  it('refuses a checkpoint that does not match the model, naming the tensor, and changes nothing', async () => {
    const a = train.sgd(params(), { lr: 0.1, momentum: 0.9 });
    a.step(grads(1));
    const bytes = await train.saveCheckpoint(a);
    const before = bits(a.params.w!);

    const wider = train.sgd({ w: tensor([[1, 2, 3]], { dtype: 'float64' }), b: params().b }, { lr: 0.1 });
    expect(() => train.loadCheckpoint(wider, bytes)).toThrow(
      "loadCheckpoint: tensor 'param/w': has shape [2, 2], the model's 'w' has [1, 3]",
    );
    const f32 = train.sgd({ w: params().w, b: tensor([0, 0], { dtype: 'float32' }) }, { lr: 0.1 });
    expect(() => train.loadCheckpoint(f32, bytes)).toThrow(
      "tensor 'param/b': has dtype float64, the model's 'b' has float32",
    );
    const more = train.sgd({ ...params(), c: tensor([1], { dtype: 'float64' }) }, { lr: 0.1 });
    expect(() => train.loadCheckpoint(more, bytes)).toThrow("tensor 'param/c': is missing from the checkpoint");
    const fewer = train.sgd({ w: params().w }, { lr: 0.1 });
    expect(() => train.loadCheckpoint(fewer, bytes)).toThrow(
      "tensor 'param/b': matches no parameter or state of this optimizer",
    );
    const adam = train.adam(params());
    expect(() => train.loadCheckpoint(adam, bytes)).toThrow('the checkpoint is of a sgd optimizer, this one is adam');
    const plain = await train.saveSafetensors({ w: params().w });
    expect(() => train.loadCheckpoint(a, plain)).toThrow(/not a raf-op training checkpoint/);
    // Refused loads left every optimizer as it was.
    expect(bits(a.params.w!)).toBe(before);
    expect(wider.state.step).toBe(0);
    expect(Array.from(wider.params.w!.dataSync())).toEqual([1, 2, 3]);
  });
});
