// Broadcast walks for the generated elementwise kernels (AssemblyScript): scratch vectors and the partial vector at a run's end.

/** Row scratch: one splat vector per tensor input (an input constant along a run), then one staging vector. */
export const ROW_SCRATCH: usize = memory.data(16 * 8, 16);
/** The staging vector, after the splat slots. */
export const ROW_STAGE: usize = ROW_SCRATCH + 16 * 7;

/** A run's last partial vector of an input: p itself when it steps 0 (a splat slot), else `bytes` bytes staged. */
export function tailLoad(p: usize, step: i32, bytes: usize): v128 {
  if (!step) return v128.load(p);
  memory.copy(ROW_STAGE, p, bytes);
  return v128.load(ROW_STAGE);
}

/** Stores the first `bytes` bytes of v at p (a run's last partial vector of the output). */
export function tailStore(p: usize, v: v128, bytes: usize): void {
  v128.store(ROW_STAGE, v);
  memory.copy(p, ROW_STAGE, bytes);
}
