// The threaded variant of the wasm dialect's module, derived from its ordinary build (build/raf.wasm) at load time:
// the same code and data, its memory imported as a shared WebAssembly.Memory (`env.memory`) instead of defined
// inside, so the main thread's instance and every worker's run on one memory. Rewriting the binary's memory
// declaration keeps `npm install`'s prepare at one AssemblyScript build, and the two variants can never disagree.

/** The shared memory's maximum, in 64 KiB pages (4 GiB, all of wasm32): shared memories must declare one. */
export const MAX_PAGES = 65536;

const MEMORY_SECTION = 5;
const IMPORT_SECTION = 2;
const MEMORY_KIND = 2;
/** Limits flags: a maximum is present (1) and the memory is shared (2). */
const SHARED_WITH_MAX = 3;

interface Section {
  readonly id: number;
  readonly body: Uint8Array;
}

/**
 * `bytes` (a module that defines one memory and exports it) rewritten to import that memory, shared, from
 * `env.memory`; `initialPages` is the minimum the importer's memory must have.
 */
export function sharedMemoryVariant(bytes: Uint8Array): {
  readonly bytes: Uint8Array<ArrayBuffer>;
  readonly initialPages: number;
} {
  if (bytes.length < 8 || bytes[0] !== 0 || bytes[1] !== 0x61 || bytes[2] !== 0x73 || bytes[3] !== 0x6d)
    throw new Error('setWasmThreads: the wasm dialect module is not a WebAssembly binary');
  const sections: Section[] = [];
  for (let p = 8; p < bytes.length;) {
    const id = bytes[p++]!;
    const [size, q] = readU32(bytes, p);
    sections.push({ id, body: bytes.subarray(q, q + size) });
    p = q + size;
  }
  const memory = sections.find((s) => s.id === MEMORY_SECTION);
  if (!memory) throw new Error('setWasmThreads: the wasm dialect module defines no memory to share');
  const [count, p0] = readU32(memory.body, 0);
  if (count !== 1) throw new Error(`setWasmThreads: the wasm dialect module defines ${count} memories, not 1`);
  const flags = memory.body[p0]!;
  const [initialPages] = readU32(memory.body, p0 + 1);
  if (flags & 4) throw new Error('setWasmThreads: a 64-bit memory cannot be shared here');

  const entry = [
    ...name('env'),
    ...name('memory'),
    MEMORY_KIND,
    SHARED_WITH_MAX,
    ...writeU32(initialPages),
    ...writeU32(MAX_PAGES),
  ];
  const out: number[][] = [[...bytes.subarray(0, 8)]];
  let imported = false;
  const importSection = (existing?: Uint8Array): number[] => {
    imported = true;
    // The memory becomes memory 0 either way: imported memories come first and the module defines none now.
    if (!existing) return section(IMPORT_SECTION, [...writeU32(1), ...entry]);
    const [n, p] = readU32(existing, 0);
    return section(IMPORT_SECTION, [...writeU32(n + 1), ...existing.subarray(p), ...entry]);
  };
  for (const s of sections) {
    if (s.id === MEMORY_SECTION) continue;
    if (s.id === IMPORT_SECTION) out.push(importSection(s.body));
    // Known sections come in id order (custom ones, id 0, anywhere): the imports go before the first past them.
    else {
      if (!imported && s.id > IMPORT_SECTION && s.id !== 0) out.push(importSection());
      out.push(section(s.id, [...s.body]));
    }
  }
  if (!imported) out.push(importSection());
  return { bytes: Uint8Array.from(out.flat()), initialPages };
}

function section(id: number, body: number[]): number[] {
  return [id, ...writeU32(body.length), ...body];
}

function name(s: string): number[] {
  return [...writeU32(s.length), ...Array.from(s, (c) => c.charCodeAt(0))];
}

/** An unsigned LEB128 at p: its value and the position after it. */
function readU32(b: Uint8Array, p: number): [number, number] {
  let value = 0;
  let shift = 0;
  for (;;) {
    const byte = b[p++];
    if (byte === undefined) throw new Error('setWasmThreads: the wasm dialect module is truncated');
    value += (byte & 0x7f) * 2 ** shift;
    if (!(byte & 0x80)) return [value, p];
    shift += 7;
  }
}

function writeU32(v: number): number[] {
  const out: number[] = [];
  do {
    let byte = v % 128;
    v = Math.floor(v / 128);
    if (v > 0) byte |= 0x80;
    out.push(byte);
  } while (v > 0);
  return out;
}
