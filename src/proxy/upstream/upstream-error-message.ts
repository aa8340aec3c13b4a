/** The message inside an upstream's error body (OpenAI `{error: {message}}`, vLLM `{message}`, FastAPI `{detail}`), else the text. */
export function upstreamErrorMessage(status: number, text: string): string {
  let message: unknown;
  try {
    const body = JSON.parse(text) as Record<string, unknown> | null;
    const error = body?.error;
    message = (typeof error === 'object' && error !== null ? (error as Record<string, unknown>).message : error) ?? body?.message ?? body?.detail;
  } catch {
    message = text.trim();
  }
  const detail = typeof message === 'string' && message.length > 0 ? message : JSON.stringify(message ?? text);
  return `upstream answered ${status}: ${detail.slice(0, 2_000)}`;
}
