import { readFile } from 'node:fs/promises';
import { ToolwireError } from '../core/errors.ts';
import type { JsonSchema, ToolDefinition } from '../core/index.ts';
import { parseJsonText } from '../core/parse-json.ts';
import { checkSchemaPatterns, createValidator, UnsupportedPatternError } from '../schema/index.ts';
import { UsageError } from './usage-error.ts';

/**
 * A tool in a tools file whose schema cannot be used: found once, when the file is read, with
 * its place (`tools.json: tools[2] "search": inputSchema.properties.q.pattern …`), instead of on
 * every call the model makes.
 */
export class InvalidToolDefinitionError extends ToolwireError {
  /** Where in the file: `tools[2] "search": inputSchema.properties.q.pattern`. */
  readonly place: string;

  constructor(file: string, place: string, reason: string, options: { cause?: unknown } = {}) {
    super('invalid-tool-definition', `${file}: ${place}: ${reason}`, options);
    this.place = place;
  }
}

/**
 * Reads and checks a tools file: a JSON array of `{name, description?, inputSchema}` (or
 * `parameters`), each entry also as OpenAI's request writes it
 * (`{"type": "function", "function": {name, description, parameters}}`), the array also as a
 * request's `{"tools": [...]}`.
 */
export async function readToolsFile(path: string): Promise<ToolDefinition[]> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new UsageError(`cannot read tools file "${path}": ${(error as Error).message}`, {
      cause: error,
    });
  }
  let value: unknown;
  try {
    value = parseJsonText(text);
  } catch (error) {
    throw new UsageError(`tools file "${path}" is not valid JSON: ${(error as Error).message}`, {
      cause: error,
    });
  }
  // A request body (or anything holding `tools`): its tools.
  if (isObject(value) && Array.isArray(value.tools)) value = value.tools;
  if (!Array.isArray(value)) {
    throw new UsageError(
      `tools file "${path}" must hold a JSON array of {"name", "description"?, "inputSchema"}, not ${value === null ? 'null' : typeof value}`,
    );
  }
  const entries: typeof value = value.map(unwrappedFunction);
  const tools = entries.map((tool, index): ToolDefinition => {
    const where = `tools file "${path}", entry ${index}`;
    if (tool === null || typeof tool !== 'object' || Array.isArray(tool)) {
      throw new UsageError(`${where}: expected an object`);
    }
    if (typeof tool.name !== 'string' || tool.name.length === 0) {
      throw new UsageError(`${where}: "name" must be a non-empty string`);
    }
    if (tool.description !== undefined && typeof tool.description !== 'string') {
      throw new UsageError(`${where} ("${tool.name}"): "description" must be a string`);
    }
    const schema = tool.inputSchema ?? tool.parameters;
    if (
      schema === undefined ||
      (typeof schema !== 'object' && typeof schema !== 'boolean') ||
      schema === null
    ) {
      throw new UsageError(`${where} ("${tool.name}"): "inputSchema" must be a JSON Schema object`);
    }
    return {
      name: tool.name,
      ...(tool.description !== undefined ? { description: tool.description } : {}),
      inputSchema: schema,
    };
  });
  const validator = createValidator();
  tools.forEach((tool, index) => {
    const key = entries[index].inputSchema === undefined ? 'parameters' : 'inputSchema';
    checkSchema(
      path,
      `tools[${index}] ${JSON.stringify(tool.name)}`,
      key,
      tool.inputSchema,
      validator,
    );
  });
  return tools;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** OpenAI's `{"type": "function", "function": {...}}` as the function it wraps. */
function unwrappedFunction(entry: unknown): unknown {
  return isObject(entry) && entry.type === 'function' && isObject(entry.function)
    ? entry.function
    : entry;
}

/** What the validator says of a schema it cannot compile (it reports it as the input's problem). */
const INVALID_SCHEMA_PREFIX =
  "the tool's input schema is invalid, so the input could not be checked: ";

/**
 * Throws an InvalidToolDefinitionError for a schema the calls could not be checked against: a
 * pattern the linear-time engine cannot run (named by its place), or a schema that does not
 * compile.
 */
function checkSchema(
  file: string,
  tool: string,
  key: string,
  schema: JsonSchema,
  validator: ReturnType<typeof createValidator>,
): void {
  try {
    checkSchemaPatterns(schema);
  } catch (error) {
    if (!UnsupportedPatternError.isInstance(error)) throw error;
    throw new InvalidToolDefinitionError(
      file,
      `${tool}: ${key}${placeOf(error.schemaPath)}`,
      `the pattern ${JSON.stringify(error.pattern)} ${error.reason}`,
      { cause: error },
    );
  }
  const refused = validator
    .validate(undefined, schema)
    .find((problem) => problem.keyword === 'schema');
  if (refused !== undefined) {
    const reason = refused.message.startsWith(INVALID_SCHEMA_PREFIX)
      ? refused.message.slice(INVALID_SCHEMA_PREFIX.length)
      : refused.message;
    throw new InvalidToolDefinitionError(
      file,
      `${tool}: ${key}`,
      `not a JSON Schema the calls can be checked against: ${reason}`,
    );
  }
}

/** A JSON Pointer inside a schema as a property path: `/properties/q/pattern` → `.properties.q.pattern`. */
export function placeOf(pointer: string): string {
  if (pointer === '') return '';
  return pointer
    .slice(1)
    .split('/')
    .map((segment) => segment.replaceAll('~1', '/').replaceAll('~0', '~'))
    .map((segment) =>
      /^\d+$/.test(segment)
        ? `[${segment}]`
        : /^[A-Za-z_$][\w$]*$/.test(segment)
          ? `.${segment}`
          : `[${JSON.stringify(segment)}]`,
    )
    .join('');
}
