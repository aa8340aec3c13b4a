/** Text up to the first stop token: what a server's detokenizer returns when generation stops there. */
export function cutAtStop(text: string, stopTokens: readonly string[]): string {
  let end = text.length;
  for (const stop of stopTokens) {
    const i = text.indexOf(stop);
    if (i >= 0 && i < end) end = i;
  }
  return text.slice(0, end);
}
