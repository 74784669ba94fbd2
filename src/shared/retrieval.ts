/** Passages per search the agent's search tools return when neither the model nor the turn says, and the most they take. */
export const AGENT_TOP_K_DEFAULT = 8;
export const AGENT_TOP_K_MAX = 100;
/** Tool steps the agent may take for one question (the default and the most). */
export const AGENT_MAX_STEPS = 5;
