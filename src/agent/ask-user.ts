import type { AgentTool } from './types.ts';

/**
 * `ask_user`: a front-end tool (no `execute`). The run pauses with `awaiting_frontend_tools`;
 * the page shows the question as a small form and posts the answer to resume the run; `toolwire agent`
 * asks on the terminal.
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
