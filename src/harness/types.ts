import type { Task } from '../config/task.js';
import type { FileToWrite } from '../sandbox/types.js';
import type { GuiEnvironment } from './gui-environment.js';

/** What a harness adapter is told about the rollout it runs. */
export interface HarnessContext {
  task: Task;
  /** OpenAI-style base URL of the recording proxy for this rollout, e.g. http://172.18.0.1:41234/s/<secret>/v1 */
  proxyBaseUrl: string;
  secret: string;
  /** Model alias the harness should ask for. */
  model: string;
  maxTurns: number;
  /** Path of the instruction file inside the sandbox. */
  instructionPath: string;
  /** Where the agent starts and works: the task image's WORKDIR (e.g. /app), or `[environment] workdir`. */
  workdir: string;
  /** A GUI task's env server token (`Authorization: Bearer …`), for the harness that drives the environment. */
  environmentToken?: string;
  /**
   * A GUI task's env server as an MCP server (reachable from inside this rollout's container only, with its
   * token): harnesses that take MCP servers in their config get it, so they drive the GUI with their own tools.
   */
  environment?: GuiEnvironment;
}

export interface HarnessSetup {
  files: FileToWrite[];
  env: Record<string, string>;
  /** Host folders copied into the sandbox before the agent starts. */
  copies: { hostDir: string; sandboxDir: string }[];
}

/**
 * One adapter per harness: how it is configured, started headless and where its transcript lives.
 * A new harness is one file implementing this plus a line in registry.ts.
 */
export interface Harness {
  readonly name: string;
  /** False for harnesses that never call a model (oracle, nop): they need no proxy session. */
  readonly usesModel: boolean;
  setup(ctx: HarnessContext): HarnessSetup;
  /** The headless command; its stdout/stderr are saved as agent logs. */
  command(ctx: HarnessContext): string[];
  /** Sandbox paths collected into the rollout's artifacts after the agent ran. */
  readonly transcriptPaths: string[];
  /**
   * The harness's install layer, images/harness-<layer>/ (see layer.ts), mounted read-only at
   * /opt/harness/<layer> in every rollout container. Absent for harnesses the task image already has.
   */
  readonly layer?: string;
  /**
   * A built-in agent that runs on the project's Node layer (images/agent-node), mounted read-only at
   * /opt/openforge-node in every rollout container, so the task image needs no Node of its own.
   */
  readonly agentNode?: boolean;
  /**
   * Memory the harness's own processes need: the container gets at least this much even when the task
   * asks for less (a task's memory_mb is sized for its workload; a Node harness alone takes ~400 MB RSS).
   */
  readonly minMemoryMb?: number;
  /**
   * The harness has no turn limit of its own (no flag, config key or env): the proxy enforces max_turns,
   * answering the policy call after the last allowed one with a final message that ends the episode.
   */
  readonly maxTurnsAtProxy?: boolean;
  /**
   * Text the harness itself writes into tool results that differs from run to run of the same command
   * (global regexes, e.g. a chunk id or a wall time): masked when `openforge replay` compares tool results.
   */
  readonly volatileToolOutput?: readonly RegExp[];
}
