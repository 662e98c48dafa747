// Case: eager dispatch overhead, 1000 adds of two 4-element float32 vectors (the kernel itself is negligible).

import { ops } from '../../runtime/src/index.ts';
import { defineCase } from '../case.ts';
import { data, tf, tfjs } from '../peers.ts';
import { input, raf } from '../raf.ts';

const CALLS = 1000;
const a = data(4, 1);
const b = data(4, 2);
const build = () => {
  const [ta, tb] = [input([4], a), input([4], b)];
  return () => {
    let y = ops.add(ta, tb);
    for (let i = 1; i < CALLS; i++) y = ops.add(y, tb);
    return y;
  };
};
const tfBuild = () => {
  const [ta, tb] = [tf.tensor1d(a), tf.tensor1d(b)];
  return () => {
    let y = tf.add(ta, tb);
    for (let i = 1; i < CALLS; i++) y = tf.add(y, tb);
    return y;
  };
};

export default defineCase({
  name: 'dispatch 1000×',
  what: `${CALLS} eager adds of 4-element float32 vectors, each on the last: per-call overhead`,
  group: 'kernels',
  impls: {
    'raf-op': raf('add', build),
    'raf-op cpu': raf('add', build, ['cpu']),
    'tfjs-wasm': tfjs('wasm', tfBuild),
  },
});
