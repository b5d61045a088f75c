import type { AgentTool, AgentTools } from '../agent/index.ts';
import { createCodeTools } from '../agent/tools/index.ts';

/**
 * `ask_user`: a front-end tool (no `execute`). The run pauses with `awaiting_frontend_tools`;
 * the page shows the question as a small form and posts the answer to resume the run.
 */
export const ASK_USER_TOOL: AgentTool = {
  description:
    'Ask the user a question and wait for the answer. Use it only when you need something only ' +
    'the user knows (a choice, a preference, missing details); find everything else with the other tools.',
  inputSchema: {
    type: 'object',
    properties: {
      question: {
        type: 'string',
        minLength: 1,
        description: 'The question, in one or two sentences.',
      },
    },
    required: ['question'],
    additionalProperties: false,
  },
};

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
