import type { IncomingHttpHeaders } from 'node:http';
import { TASK_HEADER } from '../../engine-wire/request-headers.js';
import type { ProxySession } from '../session.js';

/** Longer than any task id a suite uses; a longer header value is a mistake, not a task. */
const MAX_TASK_ID_CHARS = 200;

/**
 * The session a call is served in: a session that names no task (an open token, a session created
 * without `task_id`) takes the one the client names in `x-openforge-task`, which the proxy sends on
 * upstream, where the sim's oracle reads it and a real model server ignores it. A session's own task
 * always wins: a harness cannot point its rollout's calls at another task.
 */
export function withClientTask(session: ProxySession, headers: IncomingHttpHeaders): ProxySession {
  if (session.taskId !== '') return session;
  const named = headers[TASK_HEADER];
  if (typeof named !== 'string') return session;
  const taskId = named.trim();
  if (taskId === '' || taskId.length > MAX_TASK_ID_CHARS) return session;
  return { ...session, taskId };
}
