/**
 * `judge: {upstream: sim:judge}`: a simulated LLM judge for tests, not a model. It answers a grader's chat
 * request deterministically, in the shape that grader parses, full marks when the prompt shows the agent acting
 * or answering and none otherwise:
 * - Claw-Eval's LLMJudge (`{"score", "reasoning"}`): the conversation holds an assistant turn, or the actions
 *   the mock services recorded hold a call;
 * - Claw-Eval's extraction prompts (which category the response gave each listed item, `msg_ids as keys`): each
 *   item gets the category its line of the response (or the heading above it) names, else the prompt's
 *   "not mentioned" option;
 * - the PinchBench / QwenClawBench rubric (`{"scores", "total", "notes"}`): a `Tool:` or `Assistant:` line.
 */
export const SIM_JUDGE = 'sim:judge';

export function simJudgeAnswer(request: unknown, model: string): Record<string, unknown> {
  const prompt = promptText(request);
  return {
    id: 'simjudge-1',
    object: 'chat.completion',
    created: 0,
    model,
    choices: [{ index: 0, message: { role: 'assistant', content: answer(prompt) }, finish_reason: 'stop' }],
    usage: { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 },
  };
}

function answer(prompt: string): string {
  if (/msg_ids as keys/.test(prompt) && /^Emails:$/m.test(prompt)) return JSON.stringify(extractCategories(prompt));
  if (/\{"score": <float>, "reasoning"/.test(prompt)) {
    const acted = clawEvalActed(prompt);
    return JSON.stringify({
      score: acted ? 1 : 0,
      reasoning: `sim:judge (simulated, deterministic): the record ${acted ? 'shows' : 'does not show'} the agent acting or answering`,
    });
  }
  const acted = /^(Tool|Assistant): \S/m.test(prompt);
  const total = acted ? 1 : 0;
  return JSON.stringify({
    scores: { sim_judge: total },
    total,
    notes: `sim:judge (simulated, deterministic): the transcript ${acted ? 'shows' : 'does not show'} the agent acting`,
  });
}

/** A part of LLMJudge's user message (`## Task Prompt\n…\n\n## Conversation\n…\n\n## Actions Taken\n…\n\n## Rubric\n…`). */
function part(prompt: string, heading: string): string {
  const start = prompt.indexOf(`## ${heading}\n`);
  if (start < 0) return '';
  const body = prompt.slice(start + heading.length + 4);
  const end = body.search(/\n\n## (Conversation|Actions Taken|Agent Actions \(from server audit log\)|Rubric)\n/);
  return (end < 0 ? body : body.slice(0, end)).trim();
}

/** Claw-Eval's evaluate() / evaluate_actions(): an assistant turn in the conversation, or an action the services recorded. */
function clawEvalActed(prompt: string): boolean {
  const conversation = part(prompt, 'Conversation');
  // a grader may pass the final answer itself as the conversation (no role tags)
  const answered = /^\[ASSISTANT\]: \S/m.test(conversation) || (conversation !== '' && !/^\[(USER|ASSISTANT)\]/m.test(conversation));
  const actions = [part(prompt, 'Actions Taken'), part(prompt, 'Agent Actions (from server audit log)')].join('\n');
  // summarize_actions: "gmail: 3 calls — …"; format_audit_artifacts: "[gmail] /gmail/send"; a grader's own list: "[草稿 #1]"
  const recorded = /: [1-9]\d* calls/.test(actions) || /^\[[^\]\n]+\]/m.test(actions);
  return answered || recorded;
}

/** A Claw-Eval extraction prompt: for each listed email, the category the assistant's response gave it. */
function extractCategories(prompt: string): Record<string, string> {
  const options = [...prompt.matchAll(/^\s+"([^"]+)"\s+—/gm)].map((m) => m[1]!);
  const none = options.at(-1) ?? 'unmentioned';
  const labels = options.slice(0, -1).sort((a, b) => b.length - a.length);
  const response = /Assistant's response:\n([\s\S]*?)\n\nOutput JSON only/.exec(prompt)?.[1] ?? '';
  const lines = response.split('\n');
  const labelIn = (line: string) => labels.find((l) => line.toLowerCase().includes(l.toLowerCase()));
  const result: Record<string, string> = {};
  for (const m of prompt.matchAll(/^\d+\. (\S+): from (\S+), subject "(.*)"$/gm)) {
    const [, id, sender, subject] = m as unknown as [string, string, string, string];
    const at = lines.findIndex((l) => l.includes(id) || l.includes(sender) || l.includes(subject));
    let label: string | undefined;
    for (let i = at; i >= 0 && !label; i--) label = labelIn(lines[i]!);
    result[id] = at >= 0 && label ? label : none;
  }
  return result;
}

function promptText(request: unknown): string {
  const messages = (request as { messages?: { content?: unknown }[] } | null)?.messages ?? [];
  return messages
    .map((m) => (typeof m.content === 'string' ? m.content : Array.isArray(m.content) ? m.content.map((p: { text?: string }) => p.text ?? '').join('') : ''))
    .join('\n');
}
