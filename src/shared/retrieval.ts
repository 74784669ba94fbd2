/** Passages per search the agent's search tools return when neither the model nor the turn says, and the most they take. */
export const AGENT_TOP_K_DEFAULT = 8;
export const AGENT_TOP_K_MAX = 100;
