import type {
  ProtocolFault,
  ToolCallProtocol,
  ToolDefinition,
  ValidationProblem,
} from '../core/index.ts';
import { formatEntry } from '../protocols/index.ts';
import { exampleInput } from '../protocols/prompt/example-input.ts';

/**
 * What the loop tells the model when a turn went wrong. Each message says exactly what was wrong
 * and what to do, so a model can correct itself on the next turn.
 */

/** The turn had no valid call although one was required: restate the format with an example. */
export function noActionMessage(
  protocol: ToolCallProtocol,
  tools: readonly ToolDefinition[],
  completionTool: string | undefined,
): string {
  const example = tools.find((tool) => tool.name !== completionTool) ?? tools[0];
  const lines = [
    'Error: your reply contained no valid tool call. Every reply must call exactly one tool in this format:',
  ];
  if (example) {
    lines.push(
      protocol.formatToolCall({
        toolName: example.name,
        input: exampleInput(example.inputSchema),
      }),
    );
  }
  if (completionTool) {
    lines.push(
      `When the task is complete, call ${completionTool} with your final answer:`,
      protocol.formatToolCall({ toolName: completionTool, input: { result: 'your final answer' } }),
    );
  }
  lines.push(`Available tools: ${tools.map((tool) => tool.name).join(', ')}.`);
  return lines.join('\n');
}

export function unknownToolMessage(names: readonly string[], tools: readonly ToolDefinition[]) {
  const quoted = names.map((name) => `"${name}"`).join(', ');
  return `Error: ${names.length === 1 ? 'there is no tool' : 'there are no tools'} named ${quoted}. Available tools: ${tools.map((tool) => tool.name).join(', ')}.`;
}

/** Every problem, by parameter: the tool's output when its input failed validation. */
export function invalidInputMessage(toolName: string, problems: readonly ValidationProblem[]) {
  const lines = problems.map((problem) => {
    const parameter = problem.path.replace(/^\//, '').replaceAll('/', '.');
    return parameter ? `- ${parameter}: ${problem.message}` : `- ${problem.message}`;
  });
  return `Error: invalid input for ${toolName}; the call was not run. Fix these and call it again:\n${lines.join('\n')}`;
}

const MAX_QUOTED_RAW = 2000;

export function malformedCallMessage(faults: readonly ProtocolFault[]): string {
  const lines = faults.map((fault) => {
    const raw =
      fault.raw.length > MAX_QUOTED_RAW ? `${fault.raw.slice(0, MAX_QUOTED_RAW)}…` : fault.raw;
    return `- ${fault.message}. You wrote: ${JSON.stringify(raw)}`;
  });
  return `Error: a tool call could not be read:\n${lines.join('\n')}\nWrite the call again in the exact format.`;
}

export function lastStepWarning(completion: 'tool' | 'no-call', completionTool: string): string {
  return completion === 'tool'
    ? `This is your last step. Call ${completionTool} now with your best final answer; no other tool will run.`
    : 'This is your last step. Reply now with your best final answer, without calling any tool.';
}

/** The values of JSON `"name"` keys: the tool names of the JSON call formats. */
function jsonToolNamesIn(text: string): string[] {
  return Array.from(text.matchAll(/"name"\s*:\s*"([^"\\]{1,100})"/g), (match) => match[1]!);
}

/**
 * Names the model used as tools that are not declared. Undeclared markup stays text in the
 * parsers (it may be prose), so this looks at a turn that produced no call, once, to tell the
 * model precisely what it got wrong. The format says how its text names tools
 * (`FormatEntry.toolNamesIn`); JSON `"name"` values otherwise.
 */
export function findUndeclaredToolNames(
  protocol: ToolCallProtocol,
  text: string,
  declared: ReadonlySet<string>,
): string[] {
  const toolNamesIn = formatEntry(protocol.name)?.toolNamesIn ?? jsonToolNamesIn;
  const found = new Set<string>();
  for (const name of toolNamesIn(text)) if (!declared.has(name)) found.add(name);
  return [...found];
}
