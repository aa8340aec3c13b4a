import { InvalidArgumentError } from 'commander';

/** A commander argument parser for counts: a whole number of at least 1. */
export function toInt(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError(`expected a positive whole number, got "${value}"`);
  return n;
}

/** A commander argument parser for a TCP port: 0 (any free one) to 65535. */
export function toPort(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 65535) throw new InvalidArgumentError(`expected a port from 0 to 65535, got "${value}"`);
  return n;
}
