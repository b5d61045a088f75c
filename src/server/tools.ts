import { type AgentTools, ASK_USER_TOOL } from '../agent/index.ts';
import { createCodeTools } from '../agent/tools/index.ts';

export { ASK_USER_TOOL };

/** The tools `toolwire serve` gives the agent: the code tools over `root`, and `ask_user`. */
export function serverTools(root: string): AgentTools {
  return { ...createCodeTools({ root }), ask_user: ASK_USER_TOOL };
}

/** Instructions for the model, before the protocol's own section. */
export function serverSystemPrompt(root: string): string {
  return (
    `You are a code assistant working in the repository at ${root}. ` +
    'Use the tools to find the answer; paths are relative to the repository root. ' +
    'Answer in Markdown.'
  );
}
