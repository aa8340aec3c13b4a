/** True for a plain JSON object (not null, not an array): the shape every recorded body's members are read from. */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
