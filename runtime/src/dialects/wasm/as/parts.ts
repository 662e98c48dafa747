// Splitting a kernel's work into equal parts for opt-in threads (AssemblyScript): each thread's call takes its `part`.

/** Where share `part` of `parts` of `n` items starts (share parts is n). */
export function share(n: i32, part: i32, parts: i32): i32 {
  return <i32>((<i64>n * <i64>part) / <i64>parts);
}
