import { describe, expect, it } from 'vitest';
import { simJudgeAnswer } from '../../../src/sim/judge.js';

const ask = (...contents: string[]) =>
  JSON.parse(
    (
      simJudgeAnswer({ messages: contents.map((content, i) => ({ role: i === contents.length - 1 ? 'user' : 'system', content })) }, 'judge') as {
        choices: { message: { content: string } }[];
      }
    ).choices[0]!.message.content,
  );

// Claw-Eval's LLMJudge: its system prompt and its user message's sections, as graders/llm_judge.py builds them
const SYSTEM = 'You are an evaluation judge for an AI assistant.\nRespond with JSON only: {"score": <float>, "reasoning": "<brief explanation>"}\n';
const evaluate = (conversation: string, actions: string) =>
  `## Task Prompt\nSort my inbox\n\n## Conversation\n${conversation}\n\n## Actions Taken\n${actions}\n\n## Rubric\nScore it.`;

describe('sim:judge', () => {
  it("answers Claw-Eval's LLMJudge with full marks when the agent answered or a service recorded its actions, none otherwise", () => {
    expect(ask(SYSTEM, evaluate('[USER]: Sort my inbox\n[ASSISTANT]: Done: 3 need a reply.', 'No actions recorded.'))).toMatchObject({ score: 1 });
    expect(ask(SYSTEM, evaluate('[USER]: Sort my inbox', 'helpdesk: 3 calls — /helpdesk/tickets, /helpdesk/tickets/get'))).toMatchObject({ score: 1 });
    // a grader's own action list under headings of its own (T031zh's sent mails and drafts)
    expect(ask(SYSTEM, evaluate('[USER]: x', '## 已发送邮件\n没有已发送邮件。\n\n## 草稿邮件\n[草稿 #1]\n  收件人(to): a@b'))).toMatchObject({ score: 1 });
    // the final answer passed as the conversation itself
    expect(ask(SYSTEM, evaluate('All six customers handled.', 'No audit data available.'))).toMatchObject({ score: 1 });
    expect(ask(SYSTEM, evaluate('[USER]: Sort my inbox', 'No actions recorded.'))).toEqual({ score: 0, reasoning: expect.stringMatching(/does not show/) });
    expect(ask(SYSTEM, evaluate('', '## 已发送邮件\n没有已发送邮件。\n\n## 草稿邮件\n没有草稿邮件。'))).toMatchObject({ score: 0 });
    expect(
      ask(
        'judge of actions.\nRespond with JSON only: {"score": <float>, "reasoning": "x"}',
        '## Task Prompt\nt\n\n## Agent Actions (from server audit log)\n[gmail] /gmail/send\n  Request: {}\n\n## Rubric\nr',
      ),
    ).toMatchObject({ score: 1 });
  });

  it("reads a Claw-Eval extraction prompt's categories off the lines of the response that name each email", () => {
    const prompt = [
      "Given the assistant's response below, determine what email category was assigned to each email.",
      '',
      'For each email output EXACTLY one of:',
      '  "needs reply" — the assistant indicated this email requires a reply or action',
      '  "FYI"         — the assistant indicated this is a notification / informational email',
      '  "spam"        — the assistant indicated this is spam or junk',
      '  "unmentioned" — the email was not mentioned or no category was assigned',
      '',
      'Emails:',
      '1. msg_001: from boss@company.com, subject "Need your input on Q1 report"',
      '2. msg_002: from news@digest.io, subject "This Week in AI"',
      '3. msg_003: from win@lottery.xyz, subject "Congratulations You Won"',
      '4. msg_004: from hr@company.com, subject "Benefits"',
      '',
      "Assistant's response:",
      '## Spam',
      '- win@lottery.xyz: a lottery scam',
      '- msg_001 (boss@company.com): needs reply by Friday',
      '- "This Week in AI" is FYI',
      '',
      'Output JSON only, msg_ids as keys, e.g. {"msg_001": "needs reply", ...}',
    ].join('\n');
    expect(ask(prompt)).toEqual({ msg_001: 'needs reply', msg_002: 'FYI', msg_003: 'spam', msg_004: 'unmentioned' });
  });

  it('keeps answering the PinchBench / QwenClawBench rubric in its own shape', () => {
    expect(ask('## Agent Transcript\nUser: hi\nAssistant: done\n## Rubric\nr')).toMatchObject({ scores: { sim_judge: 1 }, total: 1 });
    expect(ask('## Agent Transcript\nUser: hi\n## Rubric\nr')).toMatchObject({ total: 0 });
  });
});
