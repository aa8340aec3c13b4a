import { endianness } from 'node:os';
import type { TokenIds } from '../records/call.js';

/** Token ids and logprobs are stored as little-endian binary arrays: compact and fast to decode. */

const LITTLE_ENDIAN = endianness() === 'LE';

export function encodeIds(ids: TokenIds | null): Buffer | null {
  if (!ids) return null;
  // a typed array holds platform-endian values: copied out in one go where that is little-endian
  if (LITTLE_ENDIAN) return ids instanceof Int32Array ? Buffer.from(ids.buffer, ids.byteOffset, ids.byteLength) : Buffer.from(Int32Array.from(ids).buffer);
  const buf = Buffer.allocUnsafe(ids.length * 4);
  ids.forEach((id, i) => buf.writeInt32LE(id, i * 4));
  return buf;
}

export function decodeIds(buf: Buffer | null): number[] | null {
  if (!buf) return null;
  const out = new Array<number>(buf.length / 4);
  for (let i = 0; i < out.length; i++) out[i] = buf.readInt32LE(i * 4);
  return out;
}

export function encodeFloats(values: number[] | null): Buffer | null {
  if (!values) return null;
  if (LITTLE_ENDIAN) return Buffer.from(Float64Array.from(values).buffer);
  const buf = Buffer.allocUnsafe(values.length * 8);
  values.forEach((v, i) => buf.writeDoubleLE(v, i * 8));
  return buf;
}

export function decodeFloats(buf: Buffer | null): number[] | null {
  if (!buf) return null;
  const out = new Array<number>(buf.length / 8);
  for (let i = 0; i < out.length; i++) out[i] = buf.readDoubleLE(i * 8);
  return out;
}
