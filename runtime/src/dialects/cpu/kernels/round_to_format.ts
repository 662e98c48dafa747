// CPU kernel of raf.op.round_to_format (specs/quant/round_to_format.yaml): each element through the format's rounding
// (formats.ts rounderFor, ONNX's Cast rules), written to the carrier dtype.

import type { RoundToFormatKernel } from '../../../generated/bridge/round_to_format.ts';
import { rounderFor, type NarrowFormat, type RoundMode } from '../../../formats.ts';
import { allocOut, finish } from '../support.ts';

export const roundToFormatCpu: RoundToFormatKernel = ({ x }, { format, saturate, round_mode }, out) => {
  const round = rounderFor(format as NarrowFormat, saturate, round_mode as RoundMode);
  const y = allocOut(out);
  const yv = y.dataSync();
  const xv = x.dataSync();
  for (let i = 0; i < xv.length; i++) yv[i] = round(Number(xv[i]!));
  return finish(y);
};
