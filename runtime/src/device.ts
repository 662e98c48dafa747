// Devices: where a tensor's storage lives and which dialects may serve a call.

import { OpError } from './errors.ts';

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
  if (!m)
    throw new OpError(
      'device',
      `unknown device ${JSON.stringify(spec)}; valid devices: cpu, webgpu, cpu(N), webgpu(N)`,
      'spec',
    );
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
