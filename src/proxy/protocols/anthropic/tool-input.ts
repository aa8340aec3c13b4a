/**
 * A tool call's JSON arguments as the `input` object Anthropic clients require. A model can emit
 * arguments that are not a JSON object; the harness then gets `{}` and, validating it against the
 * tool's schema, tells the model what is missing (the record keeps the tokens it really generated).
 */
export function toolInput(argumentsJson: string | undefined): Record<string, unknown> {
  if (!argumentsJson) return {};
  try {
    const value: unknown = JSON.parse(argumentsJson);
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}
