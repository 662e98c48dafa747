// Devices: where a tensor's storage lives and which dialects may serve a call.

export type DeviceKind = 'cpu' | 'webgpu';

export interface Device {
  readonly kind: DeviceKind;
  readonly id: number;
}

const interned = new Map<string, Device>();

/** Devices are interned, so `===` compares them. Accepts `'cpu'`, `'webgpu'`, `'cpu(0)'`. */
export function device(spec: DeviceKind | `${DeviceKind}(${number})` | Device = 'cpu'): Device {
  if (typeof spec !== 'string') return spec;
  const m = /^(cpu|webgpu)(?:\((\d+)\))?$/.exec(spec);
  if (!m) throw new Error(`unknown device '${spec}'; expected cpu, webgpu, cpu(N) or webgpu(N)`);
  const key = `${m[1]}(${m[2] ?? 0})`;
  let d = interned.get(key);
  if (!d) {
    d = Object.freeze({ kind: m[1] as DeviceKind, id: Number(m[2] ?? 0) });
    interned.set(key, d);
  }
  return d;
}

export function deviceName(d: Device): string {
  return `${d.kind}(${d.id})`;
}

export const CPU: Device = device('cpu');
