/** The rollout's GUI environment as an MCP server: its kind names the server (`browser`, `desktop`), so tools read `…browser__browser_click`. */
export interface GuiEnvironment {
  kind: 'browser' | 'desktop';
  /** Streamable HTTP endpoint of the env server, inside the rollout's own container. */
  mcpUrl: string;
  /** Sent as `Authorization: Bearer <token>`: the env server answers its own rollout only. */
  token: string;
}

/** The env variable adapters put the env token in when their config can name a variable instead of the value. */
export const ENV_TOKEN_VAR = 'OPENFORGE_ENV_TOKEN';

/** `{ Authorization: "Bearer …" }` for configs that take literal headers. */
export function authorizationHeader(env: GuiEnvironment): Record<string, string> {
  return { Authorization: `Bearer ${env.token}` };
}
