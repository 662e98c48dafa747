// Selects Mesa 25's lavapipe (unpacked by scripts/install-lavapipe.sh) as this test process's WebGPU adapter: Dawn's Vulkan backend at core level, with shader-f16.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const LAVAPIPE_ICD = fileURLToPath(new URL('../../.lavapipe/icd.json', import.meta.url));

/**
 * Points the Vulkan loader at lavapipe and Dawn at its Vulkan backend; returns false when it is not unpacked. Call
 * it before the first acquireGpu() of the process: vitest runs each test file in a process of its own.
 */
export function useLavapipe(): boolean {
  if (!existsSync(LAVAPIPE_ICD)) return false;
  process.env.VK_ICD_FILENAMES = LAVAPIPE_ICD;
  process.env.RAF_WEBGPU_BACKEND = 'vulkan';
  return true;
}
