import type { ClawEvalTask } from './task-yaml.js';

/**
 * The task's prompt, then its tools: under Claw-Eval's runner the model gets them as function tools; a harness
 * run as it is has only its own, so each is described with its JSON input schema and the HTTP call that is it
 * (a POST of the input as JSON to its mock service on 127.0.0.1), made with curl from the shell.
 */
export function instructionOf(task: ClawEvalTask): string {
  const endpoints = new Map(task.tool_endpoints.map((e) => [e.tool_name, e]));
  const tools = task.tools.filter((t) => endpoints.has(t.name));
  if (!tools.length) return task.prompt.text.trimEnd() + '\n';
  const lines = [
    task.prompt.text.trimEnd(),
    '',
    '## Tools',
    '',
    'These tools are HTTP endpoints of services running beside you. Call a tool by sending its input as a JSON',
    'object in the body of an HTTP request to its URL, e.g. with curl from the shell:',
    '',
  ];
  const first = tools[0]!;
  lines.push(
    '```sh',
    `curl -s -X ${method(endpoints.get(first.name)!.method)} ${url(endpoints.get(first.name)!.url)} -H 'Content-Type: application/json' -d '{}'`,
    '```',
    '',
  );
  lines.push("The response body is the tool's result (JSON).", '');
  for (const t of tools) {
    const e = endpoints.get(t.name)!;
    lines.push(
      `### ${t.name}`,
      '',
      t.description.trim(),
      '',
      `${method(e.method)} ${url(e.url)}`,
      '',
      'Input schema:',
      '',
      '```json',
      JSON.stringify(t.input_schema ?? { type: 'object' }, null, 2),
      '```',
      '',
    );
  }
  return lines.join('\n');
}

const method = (m: string) => m.toUpperCase();
/** Their URLs say localhost; 127.0.0.1 avoids a resolver that tries ::1 first (the services listen on IPv4). */
const url = (u: string) => u.replace(/\/\/localhost([:/])/, '//127.0.0.1$1');
