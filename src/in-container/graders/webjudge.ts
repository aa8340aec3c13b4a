/**
 * The LLM judge for imported live-site tasks, after Online-Mind2Web's WebJudge: (1) key points from the
 * task, (2) each screenshot scored for how much it shows evidence of those key points, keeping the key
 * ones, (3) a verdict from the task, key points and key screenshots. The agent's reasoning is never shown;
 * its final answer, when there is one, is shown only as an unverified claim to check against the images.
 *
 * This file is compiled to a standalone script (no imports) and copied into each imported task as
 * tests/webjudge.mjs; tests/test.sh runs it with the image's Node. The judge is any OpenAI-compatible chat
 * endpoint: OPENFORGE_JUDGE_BASE_URL (…/v1), OPENFORGE_JUDGE_MODEL, optional OPENFORGE_JUDGE_API_KEY —
 * the orchestrator can point it at the recording proxy.
 */

export interface JudgeTask {
  task_id: string;
  source: string;
  task: string;
  website: string;
}

export interface JudgeConfig {
  baseUrl: string;
  model: string;
  apiKey?: string;
  /** Screenshots scoring at least this (1–5) count as key screenshots. */
  threshold: number;
}

export interface JudgeResult {
  reward: number;
  verdict: 'success' | 'failure';
  key_points: string;
  scores: number[];
  key_screenshots: number;
  reason: string;
}

type Content = string | ({ type: 'text'; text: string } | { type: 'image_url'; image_url: { url: string } })[];

export async function chat(config: JudgeConfig, system: string, user: Content): Promise<string> {
  const res = await fetch(`${config.baseUrl.replace(/\/+$/, '')}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(config.apiKey ? { authorization: `Bearer ${config.apiKey}` } : {}) },
    body: JSON.stringify({
      model: config.model,
      temperature: 0,
      messages: [
        { role: 'system', content: system },
        { role: 'user', content: user },
      ],
    }),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`judge endpoint answered ${res.status}: ${text.slice(0, 300)}`);
  const content = (JSON.parse(text) as { choices?: { message?: { content?: unknown } }[] }).choices?.[0]?.message?.content;
  if (typeof content !== 'string') throw new Error(`judge answer has no message content: ${text.slice(0, 300)}`);
  return content;
}

/** "Score: 4" (or the last standalone 1–5 digit) → 4; nothing recognisable → 0. */
export function parseScore(answer: string): number {
  const m = /score\W*([1-5])/i.exec(answer) ?? /\b([1-5])\b(?![\s\S]*\b[1-5]\b)/.exec(answer);
  return m ? Number(m[1]) : 0;
}

/** WebJudge's verdict line "Status: success" / "Status: failure"; anything else is a failure. */
export function parseVerdict(answer: string): 'success' | 'failure' {
  const m = /status\W*"?\s*(success|failure)/i.exec(answer);
  return m && m[1]!.toLowerCase() === 'success' ? 'success' : 'failure';
}

const KEY_POINTS_SYSTEM =
  'You are an expert evaluator of web tasks. List the key points a web agent must satisfy to complete the task: ' +
  'every explicit requirement and constraint (filters, dates, quantities, ranges, sort orders). Do not add requirements. ' +
  'Answer as "Key Points:" followed by a numbered list.';
const SCORE_SYSTEM =
  'You are an expert evaluator. Given a task, its key points and one screenshot of the browser taken while an agent worked on it, ' +
  'judge how much the screenshot shows evidence needed to decide whether the task was completed (e.g. applied filters, results, confirmations). ' +
  'Answer with a short reasoning, then a final line "Score: N" with N from 1 (irrelevant) to 5 (decisive evidence).';
const VERDICT_SYSTEM =
  'You are an expert in evaluating the performance of a web navigation agent. Decide from the task, its key points and the screenshots ' +
  'whether the task was completed. Every key point must be visibly satisfied in the screenshots; do not trust any claim that is not ' +
  'supported by the screenshots, and do not assume anything that is not shown. Answer with your reasoning, then a final line ' +
  '"Status: success" or "Status: failure".';

/** Runs the three WebJudge stages over the screenshots (PNG buffers, oldest first). */
export async function judge(config: JudgeConfig, task: JudgeTask, screenshots: Buffer[], finalAnswer: string | null): Promise<JudgeResult> {
  const image = (png: Buffer) => ({ type: 'image_url' as const, image_url: { url: `data:image/png;base64,${png.toString('base64')}` } });
  const keyPoints = await chat(config, KEY_POINTS_SYSTEM, `Task: ${task.task}\nWebsite: ${task.website}`);
  const scores: number[] = [];
  for (const shot of screenshots) {
    const answer = await chat(config, SCORE_SYSTEM, [{ type: 'text', text: `Task: ${task.task}\n\n${keyPoints}` }, image(shot)]);
    scores.push(parseScore(answer));
  }
  // Keep the key screenshots; with none above the threshold, the last screenshot still goes to the verdict.
  let key = screenshots.filter((_, i) => scores[i]! >= config.threshold);
  if (key.length === 0 && screenshots.length > 0) key = [screenshots[screenshots.length - 1]!];
  const claim = finalAnswer ? `\n\nThe agent ended with this answer (an unverified claim; check it against the screenshots): ${finalAnswer}` : '';
  const verdictText = await chat(config, VERDICT_SYSTEM, [
    { type: 'text', text: `Task: ${task.task}\nWebsite: ${task.website}\n\n${keyPoints}${claim}\n\nThe key screenshots follow (${key.length}).` },
    ...key.map(image),
  ]);
  const verdict = parseVerdict(verdictText);
  return { reward: verdict === 'success' ? 1 : 0, verdict, key_points: keyPoints, scores, key_screenshots: key.length, reason: verdictText.slice(-2000) };
}

async function main(): Promise<void> {
  const { readFileSync, readdirSync, existsSync, mkdirSync, writeFileSync } = await import('node:fs');
  const path = await import('node:path');
  const env = process.env;
  const testsDir = path.dirname(new URL(import.meta.url).pathname);
  const outDir = env.OPENFORGE_VERIFIER_DIR ?? '/logs/verifier';
  mkdirSync(outDir, { recursive: true });
  const write = (record: object) => writeFileSync(path.join(outDir, 'reward.json'), `${JSON.stringify(record)}\n`);
  const task = JSON.parse(readFileSync(path.join(testsDir, 'task.json'), 'utf8')) as JudgeTask;
  if (!env.OPENFORGE_JUDGE_BASE_URL || !env.OPENFORGE_JUDGE_MODEL) {
    console.log('no judge configured: set OPENFORGE_JUDGE_BASE_URL (an OpenAI-compatible …/v1) and OPENFORGE_JUDGE_MODEL; scoring 0');
    return write({ reward: 0, error: 'no judge configured' });
  }
  const config: JudgeConfig = {
    baseUrl: env.OPENFORGE_JUDGE_BASE_URL,
    model: env.OPENFORGE_JUDGE_MODEL,
    apiKey: env.OPENFORGE_JUDGE_API_KEY,
    threshold: Number(env.OPENFORGE_JUDGE_THRESHOLD ?? 3),
  };
  const max = Number(env.OPENFORGE_JUDGE_MAX_SCREENSHOTS ?? 5);
  // The screenshots the agent's harness kept (name order = time order), then the screen as it is now.
  const shotsDir = env.OPENFORGE_SCREENSHOTS_DIR ?? '/logs/artifacts/screenshots';
  const shots: Buffer[] = existsSync(shotsDir)
    ? readdirSync(shotsDir)
        .filter((f) => f.endsWith('.png'))
        .sort()
        .map((f) => readFileSync(path.join(shotsDir, f)))
    : [];
  try {
    const res = await fetch(`${env.OPENFORGE_BROWSER_ENV_URL ?? 'http://127.0.0.1:7000'}/observation`);
    if (res.ok) {
      const obs = (await res.json()) as { screenshot?: { data?: string; mime?: string } };
      if (obs.screenshot?.data && obs.screenshot.mime === 'image/png') shots.push(Buffer.from(obs.screenshot.data, 'base64'));
    }
  } catch (err) {
    console.log(`no current screenshot from the env server: ${(err as Error).message}`);
  }
  const answerFile = env.OPENFORGE_FINAL_ANSWER_FILE ?? '/logs/agent/answer.txt';
  const finalAnswer = existsSync(answerFile) ? readFileSync(answerFile, 'utf8').trim() || null : null;
  const result = await judge(config, task, shots.slice(-max), finalAnswer);
  console.log(`judge verdict: ${result.verdict} (screenshot scores ${result.scores.join(', ') || 'none'})`);
  write(result);
}

if (process.argv[1] && new URL(import.meta.url).pathname === process.argv[1]) {
  main().catch((err: Error) => {
    console.error(`judge failed: ${err.message}`);
    process.exitCode = 1;
  });
}
