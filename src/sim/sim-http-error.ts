/** An error the sim server answers with its own status and an OpenAI-shaped body. */
export class SimHttpError extends Error {
  readonly param: string | null;
  readonly code: string | null;
  constructor(
    readonly status: number,
    message: string,
    details: { param?: string | null; code?: string | null } = {},
  ) {
    super(message);
    this.name = 'SimHttpError';
    this.param = details.param ?? null;
    this.code = details.code ?? null;
  }
}

export interface OpenAiErrorBody {
  error: { message: string; type: string; param: string | null; code: string | null };
}

export function openAiErrorBody(status: number, message: string, param: string | null = null, code: string | null = null): OpenAiErrorBody {
  const type = status >= 500 ? 'internal_server_error' : status === 404 ? 'not_found_error' : 'invalid_request_error';
  return { error: { message, type, param, code } };
}
