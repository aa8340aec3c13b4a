import type { Task } from '../../config/task.js';
import type { ChatRequest } from '../chat-request.js';

/** What the simulated model "generates" for one call, before it is rendered into tokens. */
export interface PolicyAnswer {
  content: string | null;
  reasoning?: string;
  /** `arguments` is the JSON text exactly as generated (it is rendered into the tokens verbatim). */
  toolCalls: { name: string; arguments: string }[];
}

export interface PolicyContext {
  task?: Task;
  rolloutId?: string;
  /** The weights the simulated engine serves (the service's last resume named them); undefined before any was named. */
  weightVersion?: string;
}

export interface Policy {
  /** Shown in the `x-openforge-sim` header and the model id, e.g. `oracle`, `noisy:0.3`. */
  name: string;
  /** True when `respond` needs `ctx.task`; the server then resolves it or answers 400. */
  needsTask?: boolean;
  /** May throw a SimHttpError (e.g. 409 when a replay runs out of answers). */
  respond(request: ChatRequest, ctx: PolicyContext): PolicyAnswer;
}
