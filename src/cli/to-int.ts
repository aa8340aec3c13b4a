/** A commander argument parser for counts: a whole number of at least 1. */
export function toInt(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new Error(`expected a positive whole number, got "${value}"`);
  return n;
}
