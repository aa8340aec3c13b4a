/**
 * `judge: {upstream: sim:judge}`: a simulated LLM judge for tests, not a model. It answers a grader's chat
 * request deterministically, in the JSON shape rubric graders ask for: full marks when the prompt's agent
 * transcript shows the agent acting or answering (a `Tool:` or `Assistant:` line), none when it is empty.
 */
export const SIM_JUDGE = 'sim:judge';

export function simJudgeAnswer(request: unknown, model: string): Record<string, unknown> {
  const prompt = promptText(request);
  const acted = /^(Tool|Assistant): \S/m.test(prompt);
  const total = acted ? 1 : 0;
  const content = JSON.stringify({
    scores: { sim_judge: total },
    total,
    notes: `sim:judge (simulated, deterministic): the transcript ${acted ? 'shows' : 'does not show'} the agent acting`,
  });
  return {
    id: 'simjudge-1',
    object: 'chat.completion',
    created: 0,
    model,
    choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
    usage: { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 },
  };
}

function promptText(request: unknown): string {
  const messages = (request as { messages?: { content?: unknown }[] } | null)?.messages ?? [];
  return messages
    .map((m) => (typeof m.content === 'string' ? m.content : Array.isArray(m.content) ? m.content.map((p: { text?: string }) => p.text ?? '').join('') : ''))
    .join('\n');
}
