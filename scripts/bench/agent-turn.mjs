// The request and answer the proxy benches send and receive: one agent turn.

/** What the sim answers every bench call with. */
export const ANSWER = 'Sure. I will list the files first, then read the config and fix the failing test before I run it again.';
/** The load generator writes each call's id into its user message, where the timed sim finds it. */
export const CALL_MARK = '{{call}}';

/**
 * A mid-sized agent turn: system prompt, one tool, a short history (~4 KB). With `requestKb` above that,
 * more tool turns are appended until the body is that many KB: a long rollout's request, whose whole
 * history the harness sends with every call.
 */
export function agentTurn(stream, requestKb = 4) {
  const body = baseRequestBody(stream);
  for (let turn = 2; JSON.stringify(body).length < requestKb * 1024; turn++) {
    const id = `call_${turn}`;
    body.messages.push(
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id, type: 'function', function: { name: 'bash', arguments: `{"command":"sed -n ${turn},${turn + 40}p src/app.py"}` } }],
      },
      { role: 'tool', tool_call_id: id, content: `${turn}: def handler(request):\n    return respond(request.args, status=200)\n`.repeat(12) },
    );
  }
  return body;
}

function baseRequestBody(stream) {
  const system = 'You are a coding agent working in /workspace. '.repeat(60);
  return {
    model: 'policy',
    stream,
    max_tokens: 256,
    tools: [
      {
        type: 'function',
        function: {
          name: 'bash',
          description: 'Run a shell command',
          parameters: { type: 'object', properties: { command: { type: 'string' } }, required: ['command'] },
        },
      },
    ],
    messages: [
      { role: 'system', content: system },
      { role: 'user', content: `The test in tests/test_config.py fails. Find out why and fix it. [call ${CALL_MARK}]` },
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'bash', arguments: '{"command":"ls -la && cat config.ini"}' } }],
      },
      { role: 'tool', tool_call_id: 'call_1', content: 'total 12\n-rw-r--r-- 1 root root 210 config.ini\n[server]\nport = eighty\n'.repeat(8) },
    ],
  };
}
