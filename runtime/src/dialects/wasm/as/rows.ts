// Broadcast walks for the generated elementwise kernels (AssemblyScript): scratch vectors and the partial vector at a run's end.

// With threads (threads/), every instance shares one memory: rows_thread gives each thread its own scratch.
const ROW_SCRATCHES: usize = memory.data(16 * 8 * 16, 16);
/** Row scratch: one splat vector per tensor input (an input constant along a run), then one staging vector. */
export let ROW_SCRATCH: usize = ROW_SCRATCHES;
/** The staging vector, after the splat slots. */
export let ROW_STAGE: usize = ROW_SCRATCH + 16 * 7;

/** Points this instance's row scratch at thread t's slice (t < 16; the main thread keeps t = 0). */
export function rows_thread(t: i32): void {
  ROW_SCRATCH = ROW_SCRATCHES + <usize>t * 16 * 8;
  ROW_STAGE = ROW_SCRATCH + 16 * 7;
}

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
