// Gathers for the wasm dialect's layout ops (AssemblyScript): y[i] = x[index[i]], the index table in wasm memory.

/** y[i] = x[index[i]] for i < n, float32 elements. */
export function gather_f32(x: usize, y: usize, index: usize, n: i32): void {
  let i = 0;
  for (; i + 4 <= n; i += 4) {
    const at = index + ((<usize>i) << 2);
    const out = y + ((<usize>i) << 2);
    store<f32>(out, load<f32>(x + ((<usize>load<i32>(at)) << 2)));
    store<f32>(out, load<f32>(x + ((<usize>load<i32>(at, 4)) << 2)), 4);
    store<f32>(out, load<f32>(x + ((<usize>load<i32>(at, 8)) << 2)), 8);
    store<f32>(out, load<f32>(x + ((<usize>load<i32>(at, 12)) << 2)), 12);
  }
  for (; i < n; i++)
    store<f32>(y + ((<usize>i) << 2), load<f32>(x + ((<usize>load<i32>(index + ((<usize>i) << 2))) << 2)));
}

/** y[i] = x[index[i]] for i < n, float64 elements. */
export function gather_f64(x: usize, y: usize, index: usize, n: i32): void {
  for (let i = 0; i < n; i++)
    store<f64>(y + ((<usize>i) << 3), load<f64>(x + ((<usize>load<i32>(index + ((<usize>i) << 2))) << 3)));
}
