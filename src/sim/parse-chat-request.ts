import type { z } from 'zod';
import { ChatRequestSchema, type ChatRequest } from './chat-request.js';
import { SimHttpError } from './sim-http-error.js';

/** Validates a request body; the 400 names the first offending field (`messages[0].content`) and what is wrong. */
export function parseChatRequest(body: unknown): ChatRequest {
  if (typeof body === 'string') {
    throw new SimHttpError(400, 'request body: expected a JSON object; send it with content-type: application/json', { code: 'invalid_value' });
  }
  const parsed = ChatRequestSchema.safeParse(body);
  if (parsed.success) return parsed.data;
  const first = parsed.error.issues[0];
  const { path, message } = first ? describeIssue(first, []) : { path: [], message: 'invalid request' };
  const param = path.length > 0 ? formatPath(path) : null;
  throw new SimHttpError(400, `${param ?? 'request body'}: ${message}`, { param, code: 'invalid_value' });
}

type Issue = z.core.$ZodIssue;
type Path = readonly PropertyKey[];

/**
 * zod reports a failed union as a bare "Invalid input"; this looks inside it for the branch that
 * got furthest (`content` was an array whose part 2 has an unknown type), or else lists what each
 * branch expected ("expected string or array").
 */
function describeIssue(issue: Issue, base: Path): { path: Path; message: string } {
  const path = [...base, ...issue.path];
  if (issue.code !== 'invalid_union' || issue.errors.length === 0) return { path, message: issue.message };
  let deepest: Issue | undefined;
  for (const branch of issue.errors) {
    const candidate = branch[0];
    if (candidate && candidate.path.length > 0 && (!deepest || candidate.path.length > deepest.path.length)) deepest = candidate;
  }
  if (deepest) return describeIssue(deepest, path);
  const expected = issue.errors.flatMap((branch) => branch.flatMap((i) => (i.code === 'invalid_type' ? [i.expected] : [])));
  const received = / received (\S+)$/.exec(issue.errors[0]?.[0]?.message ?? '')?.[1];
  if (expected.length > 0) return { path, message: `Invalid input: expected ${expected.join(' or ')}${received ? `, received ${received}` : ''}` };
  return { path, message: issue.message };
}

function formatPath(path: Path): string {
  return path.map((key, i) => (typeof key === 'number' ? `[${key}]` : i === 0 ? String(key) : `.${String(key)}`)).join('');
}
