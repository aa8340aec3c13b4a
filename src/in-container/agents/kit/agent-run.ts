import type { ChatClientOptions } from './chat-client.js';

/** What every built-in agent's loop takes, besides its own settings. */
export interface AgentRunOptions extends ChatClientOptions {
  instruction: string;
  maxTurns?: number;
  /** The JSONL event log; none when absent. */
  transcriptPath?: string;
  /** Progress and error lines; defaults to stderr. */
  log?: (line: string) => void;
}

/** How a built-in agent's loop ended; `exitCode` is its process's. */
export interface AgentResult {
  /** 0: final answer, 1: the model (or the env server) failed, 2: max turns reached. */
  exitCode: 0 | 1 | 2;
  turns: number;
  finalText: string | null;
  error?: string;
}
