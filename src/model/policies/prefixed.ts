import type { Policy, PolicyAnswer } from './types.js';

/**
 * Fork of a recorded episode: the call whose conversation already holds n assistant messages gets
 * `prefix[n]` while there is one (the recorded answers, then the edited one), and `then` answers
 * every later call. Counting assistant messages, as the replay policy does, keeps it stateless.
 */
export function createPrefixedPolicy(prefix: readonly PolicyAnswer[], then: Policy): Policy {
  return {
    name: `fork:${prefix.length}+${then.name}`,
    needsTask: then.needsTask,
    respond(request, ctx) {
      const turn = request.messages.filter((m) => m.role === 'assistant').length;
      return prefix[turn] ?? then.respond(request, ctx);
    },
  };
}
