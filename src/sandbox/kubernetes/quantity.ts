/**
 * Kubernetes resource quantities ("500m", "1.5", "512Mi", "2G", "1e3"), parsed the way the API server
 * does, so a value it would reject is caught in run.yaml before anything is created.
 */

const BINARY: Record<string, number> = { Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30, Ti: 2 ** 40, Pi: 2 ** 50, Ei: 2 ** 60 };
const DECIMAL: Record<string, number> = { n: 1e-9, u: 1e-6, m: 1e-3, '': 1, k: 1e3, M: 1e6, G: 1e9, T: 1e12, P: 1e15, E: 1e18 };
/** The API server's grammar: a signed decimal number, then a binary or decimal SI suffix or a decimal exponent. */
const QUANTITY = /^([+-]?(?:\d+\.?\d*|\.\d+))(Ki|Mi|Gi|Ti|Pi|Ei|[numkMGTPE]|[eE][+-]?\d+)?$/;

/** The quantity's value in base units (cores, bytes), or undefined when Kubernetes would reject it. */
export function parseQuantity(text: string): number | undefined {
  const match = QUANTITY.exec(text.trim() === text ? text : '');
  if (!match) return undefined;
  const number = Number(match[1]);
  const suffix = match[2] ?? '';
  if (suffix in BINARY) return number * BINARY[suffix]!;
  if (suffix in DECIMAL) return number * DECIMAL[suffix]!;
  return number * 10 ** Number(suffix.slice(1));
}

export const QUANTITY_HELP = 'a Kubernetes quantity such as 500m or 2 (CPU), 512Mi or 4Gi (memory)';
