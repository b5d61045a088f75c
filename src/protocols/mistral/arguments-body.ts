import type { ToolDefinition } from '../../core/index.ts';
import { type JsonCallShape, JsonCallsBody } from '../codecs/json/json-calls-body.ts';
import type { CallBody, CallContext } from '../engine/call-body.ts';

/**
 * Ends the name header the arguments body is told about. It is written to that body alone, never
 * read from the text: Mistral's header has several endings (`[ARGS]`, `[CALL_ID]…[ARGS]`, or the
 * `{` of the arguments itself), which this folder reads before the JSON begins.
 */
const HEADER_END = '\u0000';

const SHAPE: JsonCallShape = { nameKeys: ['name'], argumentKeys: ['arguments'] };

/**
 * A JSON-calls body reading the arguments object of one call to `tool`, whose name the text gave
 * before the JSON (`NAME[ARGS]{…}`). Make it between writes, or at the index where the JSON starts
 * within a write, then hand it the text from there on.
 */
export function argumentsBody(
  context: CallContext,
  tool: ToolDefinition,
  speculative: boolean,
): CallBody {
  const body = new JsonCallsBody(context, {
    shape: SHAPE,
    speculative,
    header: { terminator: HEADER_END, readName: () => tool.name },
  });
  // The header reader reads no offsets: feeding it its terminator leaves the body at the JSON.
  body.write(HEADER_END, 0, HEADER_END.length);
  return body;
}
