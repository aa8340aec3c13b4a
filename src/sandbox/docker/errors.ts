/** Docker answers 404 for a missing object and 409 while its removal is already under way. */
export function isGone(err: unknown): boolean {
  const status = (err as { statusCode?: number }).statusCode;
  return status === 404 || (status === 409 && /removal .* in progress|is already in progress/i.test(String((err as Error).message)));
}
