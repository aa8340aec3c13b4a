import type { ChatContent } from './content.js';

export interface ChatToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

export type ChatMessage =
  | { role: 'system' | 'user'; content: ChatContent }
  | { role: 'assistant'; content: string | null; tool_calls?: ChatToolCall[]; reasoning_content?: string }
  | { role: 'tool'; tool_call_id: string; content: ChatContent };

type AssistantMessage = Extract<ChatMessage, { role: 'assistant' }>;

/**
 * Builds Chat messages from Responses items in order, grouping them into assistant turns the way
 * a Chat template expects: a reasoning item goes to the next assistant message, and tool calls
 * that follow an assistant message (or each other) join that one message.
 */
export class ChatHistory {
  readonly messages: ChatMessage[] = [];
  /** The assistant turn that tool calls may still join. */
  private turn: AssistantMessage | null = null;
  private reasoning: string | null = null;

  say(role: 'system' | 'user', content: ChatContent): void {
    this.messages.push({ role, content });
    this.turn = null;
    // reasoning that no assistant message followed belongs to no turn
    this.reasoning = null;
  }

  assistantText(text: string): void {
    this.turn = this.newTurn(text);
  }

  toolCall(call: ChatToolCall): void {
    const turn = this.turn ?? this.newTurn(null);
    (turn.tool_calls ??= []).push(call);
    this.turn = turn;
  }

  toolResult(callId: string, content: ChatContent): void {
    this.messages.push({ role: 'tool', tool_call_id: callId, content });
    this.turn = null;
  }

  /** Reasoning starts a new assistant turn: what follows it was generated after it. */
  think(text: string): void {
    this.reasoning = (this.reasoning ?? '') + text;
    this.turn = null;
  }

  private newTurn(content: string | null): AssistantMessage {
    const message: AssistantMessage = { role: 'assistant', content };
    if (this.reasoning !== null) message.reasoning_content = this.reasoning;
    this.reasoning = null;
    this.messages.push(message);
    return message;
  }
}
