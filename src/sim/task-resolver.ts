import type { Task } from '../config/task.js';
import { contentText } from './assistant-answer.js';
import type { ChatMessage } from './chat-request.js';
import { SimHttpError } from './sim-http-error.js';
import { TASK_HEADER } from '../engine-wire/request-headers.js';

export type TaskResolver = (taskId: string | undefined, messages: readonly ChatMessage[]) => Task;

/**
 * Tells which task a conversation is for: the task the `x-openforge-task` header names, else the
 * task whose instruction text appears in a system or user message (whitespace-insensitive, so a
 * harness that re-wraps the prompt still matches; the longest instruction wins).
 */
export function createTaskResolver(tasks: readonly Task[]): TaskResolver {
  const byId = new Map(tasks.map((task) => [task.id, task]));
  const instructions = tasks
    .map((task) => ({ task, text: normalize(task.instruction) }))
    .filter((entry) => entry.text.length > 0)
    .sort((a, b) => b.text.length - a.text.length);

  return (taskId, messages) => {
    if (taskId !== undefined) {
      const task = byId.get(taskId);
      if (task) return task;
      throw new SimHttpError(400, `${TASK_HEADER} names task "${taskId}", which this sim server does not serve (${describe(tasks)})`, {
        code: 'unknown_task',
      });
    }
    const prompt = normalize(
      messages.flatMap((m) => (m.role === 'system' || m.role === 'developer' || m.role === 'user' ? [contentText(m.content)] : [])).join('\n'),
    );
    const match = instructions.find((entry) => prompt.includes(entry.text));
    if (match) return match.task;
    throw new SimHttpError(
      400,
      `cannot tell which task this conversation is for: send the header "${TASK_HEADER}: <task id>", ` +
        `or put the text of the task's instruction.md in a system or user message (${describe(tasks)})`,
      { code: 'unknown_task' },
    );
  };
}

function normalize(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

function describe(tasks: readonly Task[]): string {
  if (tasks.length === 0) return 'it was started without tasks';
  const ids = tasks
    .slice(0, 5)
    .map((t) => t.id)
    .join(', ');
  return `it serves ${tasks.length} task(s): ${ids}${tasks.length > 5 ? ', …' : ''}`;
}
