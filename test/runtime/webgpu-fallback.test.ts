// Without an adapter, CPU tensors keep running on the CPU dialect, and asking for webgpu fails with the reason.
import { describe, expect, it, vi } from 'vitest';

import { ops, tensor, withDialect } from '../../runtime/src/index.ts';
import { initWebGpu, releaseGpu, webgpuUnavailable } from '../../runtime/src/dialects/webgpu/index.ts';
import { assertAllClose, tolerance } from '../support/assert.ts';

describe('webgpu without an adapter', () => {
  it('says it is not initialized before initWebGpu()', () => {
    expect(webgpuUnavailable()).toMatch(/not initialized/);
    expect(() => withDialect(['webgpu'], () => 0)).toThrow(
      /dialect 'webgpu' is unavailable: WebGPU is not initialized/,
    );
  });

  it('falls back to the CPU, says why once, and fails explicit requests with that reason', async () => {
    // Each test file has its own module state, so disabling the backend here affects no other file.
    process.env.RAF_WEBGPU_BACKEND = 'none';
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    try {
      await releaseGpu();
      expect(await initWebGpu()).toBeNull();
      expect(await initWebGpu()).toBeNull();
      expect(warn).toHaveBeenCalledTimes(1);
      expect(String(warn.mock.calls[0]![0])).toMatch(
        /stay on the CPU dialect: WebGPU disabled by RAF_WEBGPU_BACKEND=none/,
      );

      const x = tensor([1, 2, 3]);
      // Default dispatch on the CPU device (the wasm dialect's vector exp: within float32 tolerance, not bit-exact).
      assertAllClose(ops.exp(x).dataSync(), [1, 2, 3].map(Math.exp), tolerance('float32'), 'exp on the CPU device');
      await expect(x.to('webgpu')).rejects.toThrow(
        /cannot move Tensor\(\[3\], float32, cpu\(0\)\) to webgpu\(0\): WebGPU disabled/,
      );
      expect(() => withDialect(['webgpu'], () => ops.exp(x))).toThrow(
        /dialect 'webgpu' is unavailable: WebGPU disabled by RAF_WEBGPU_BACKEND=none/,
      );
      // A preference list that includes the CPU still runs.
      expect(withDialect(['webgpu', 'cpu'], () => ops.exp(x)).device.kind).toBe('cpu');
    } finally {
      warn.mockRestore();
      delete process.env.RAF_WEBGPU_BACKEND;
      await releaseGpu();
    }
  });
});
