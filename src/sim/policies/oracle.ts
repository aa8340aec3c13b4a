import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { REFERENCE_ANSWER, type Task } from '../../config/task.js';
import type { ChatRequest } from '../chat-request.js';
import { readReferenceActions, ReferenceActionsError, toComputerCalls } from './computer-actions.js';
import { findComputerTool, type ComputerTool } from './computer-tool.js';
import { findEnvMcpTools, toMcpCalls, type EnvMcpTools } from './env-mcp-tools.js';
import { findShellTool, shellToolArguments } from './shell-tool.js';
import { readSolutionSteps } from './solution-steps.js';
import type { Policy, PolicyAnswer } from './types.js';

export { REFERENCE_ANSWER };

/**
 * Solves the task the way Harbor's oracle agent does: runs the steps of solution/solve.sh, one
 * tool call each, through the harness's own shell tool, then says it is done (or gives solution/answer.md as
 * its final answer). A browser task with
 * solution/actions.json is solved through the harness's computer tool instead, one reference action
 * (or part of one) per call, or through the env server's MCP tools when the harness shows those
 * (Claude Code, Codex, … on a GUI task). Progress is read from the conversation (tool calls already made), so
 * the policy itself keeps no state.
 */
export function createOraclePolicy(): Policy {
  return { name: 'oracle', needsTask: true, respond: (request, ctx) => oracleAnswer(request, ctx.task, ctx.weightVersion) };
}

/**
 * The closing words of a solved task. Under named weights they name them, in one of a few phrasings chosen by
 * the version: every version answers correctly and the same version always alike, yet a weight update shows in
 * the recorded answers, as a trained policy's would.
 */
export function doneText(summary: string, weightVersion: string | undefined): string {
  if (weightVersion === undefined) return `Done: ${summary}.`;
  const phrasings = [
    `Done (weights ${weightVersion}): ${summary}.`,
    `Finished (weights ${weightVersion}): ${summary}.`,
    `Complete (weights ${weightVersion}): ${summary}.`,
  ];
  return phrasings[createHash('sha256').update(weightVersion).digest()[0]! % phrasings.length]!;
}

export function oracleAnswer(request: ChatRequest, task: Task | undefined, weightVersion?: string): PolicyAnswer {
  if (!task) return textAnswer('I cannot act as the oracle: no task was named for this conversation.');
  const computer = request.tool_choice === 'none' ? undefined : findComputerTool(request.tools);
  if (computer) {
    const answer = computerAnswer(request, task, computer, weightVersion);
    if (answer) return answer;
  }
  const envTools = request.tool_choice === 'none' ? undefined : findEnvMcpTools(request.tools);
  if (envTools) {
    const answer = mcpAnswer(request, task, envTools, weightVersion);
    if (answer) return answer;
  }
  const steps = readSolutionSteps(task);
  const guiWait = guiToolsNotListedYet(request, task);
  if (guiWait) return guiWait;
  if (!steps) return textAnswer(`I cannot solve task ${task.id}: it has no solution/solve.sh for the oracle to run.`);
  const tool = request.tool_choice === 'none' ? undefined : findShellTool(request.tools);
  if (!tool) {
    return textAnswer(
      `I cannot run the reference solution of task ${task.id}: this request declares no shell tool ` +
        '(a function tool named bash, shell, exec, exec_command, run_shell_command, … or one with a command, cmd or script parameter).',
    );
  }
  const done = countToolCalls(request, tool.name);
  const step = steps[done];
  if (!step)
    return textAnswer(referenceAnswer(task) ?? doneText(`ran the ${steps.length} step(s) of the reference solution of task ${task.id}`, weightVersion));
  const description = `Step ${done + 1}/${steps.length} of the reference solution${step.label ? `: ${step.label}` : ''}`;
  return { content: null, toolCalls: [{ name: tool.name, arguments: shellToolArguments(tool, step.command, description) }] };
}

/** The next reference action as a computer-tool call, or the final answer; undefined when the task has no actions.json. */
function computerAnswer(request: ChatRequest, task: Task, tool: ComputerTool, weightVersion: string | undefined): PolicyAnswer | undefined {
  let script;
  try {
    const actions = readReferenceActions(task);
    if (!actions) return undefined;
    script = toComputerCalls(actions, tool);
  } catch (err) {
    if (err instanceof ReferenceActionsError) return textAnswer(`I cannot replay the reference actions of task ${task.id}: ${err.message}`);
    throw err;
  }
  const done = countToolCalls(request, tool.name);
  const call = script.calls[done];
  if (!call) return textAnswer(script.finalAnswer || doneText(`performed the ${script.calls.length} reference action(s) of task ${task.id}`, weightVersion));
  return { content: null, toolCalls: [{ name: tool.name, arguments: JSON.stringify(call) }] };
}

/**
 * The reference solution's final answer to the user (solution/answer.md), for tasks graded on what the agent
 * says as well as on what it leaves (PinchBench / QwenClawBench checks read the transcript); undefined without one.
 */
function referenceAnswer(task: Task): string | undefined {
  const file = task.solutionDir && path.join(task.solutionDir, REFERENCE_ANSWER);
  return file && existsSync(file) ? readFileSync(file, 'utf8').trim() : undefined;
}

/** The next reference action as an env MCP tool call, or the final answer; undefined when the task has no actions.json. */
function mcpAnswer(request: ChatRequest, task: Task, tools: EnvMcpTools, weightVersion: string | undefined): PolicyAnswer | undefined {
  let script;
  try {
    const actions = readReferenceActions(task);
    if (!actions) return undefined;
    script = toMcpCalls(actions, tools);
  } catch (err) {
    if (err instanceof ReferenceActionsError) return textAnswer(`I cannot replay the reference actions of task ${task.id}: ${err.message}`);
    throw err;
  }
  let done = 0;
  for (const message of request.messages) {
    if (message.role !== 'assistant') continue;
    for (const call of message.tool_calls ?? []) if (tools.names.has(call.function.name)) done++;
  }
  const call = script.calls[done];
  if (!call) return textAnswer(script.finalAnswer || doneText(`performed the ${script.calls.length} reference action(s) of task ${task.id}`, weightVersion));
  return { content: null, toolCalls: [{ name: call.name, arguments: JSON.stringify(call.arguments) }] };
}

/**
 * A GUI task (it has reference actions) whose request shows no GUI tool yet: a harness that connects its MCP
 * servers in the background (Codex, whose MCP resource tools are listed from the start) may send its first
 * turn before the env server's tools are. The oracle then waits a moment through the shell instead of
 * replaying the actions some other way. Without any MCP tool it goes on to solve.sh as before.
 */
function guiToolsNotListedYet(request: ChatRequest, task: Task): PolicyAnswer | undefined {
  if (!(request.tools ?? []).some((t) => /mcp/i.test(t.function?.name ?? ''))) return undefined;
  let actions;
  try {
    actions = readReferenceActions(task);
  } catch {
    return undefined;
  }
  if (!actions) return undefined;
  const tool = request.tool_choice === 'none' ? undefined : findShellTool(request.tools);
  if (!tool) return textAnswer(`I cannot act on task ${task.id}: this request declares no GUI tool (a computer tool or an env server's MCP tools).`);
  if (countToolCalls(request, tool.name) >= GUI_WAITS) {
    return textAnswer(`I cannot act on task ${task.id}: no GUI tool appeared after ${GUI_WAITS} waits.`);
  }
  return { content: null, toolCalls: [{ name: tool.name, arguments: shellToolArguments(tool, 'sleep 2', 'Wait for the GUI tools to be listed') }] };
}

/** How many times the oracle waits for a harness to list the GUI tools before it gives up. */
const GUI_WAITS = 3;

function countToolCalls(request: ChatRequest, toolName: string): number {
  let count = 0;
  for (const message of request.messages) {
    if (message.role !== 'assistant') continue;
    for (const call of message.tool_calls ?? []) if (call.function.name === toolName) count++;
  }
  return count;
}

function textAnswer(content: string): PolicyAnswer {
  return { content, toolCalls: [] };
}
