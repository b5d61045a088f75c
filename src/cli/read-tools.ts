import { readFile } from 'node:fs/promises';
import type { ToolDefinition } from '../core/index.ts';
import { UsageError } from './usage-error.ts';

/** Reads and checks a tools file: a JSON array of `{name, description?, inputSchema}`. */
export async function readToolsFile(path: string): Promise<ToolDefinition[]> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new UsageError(`cannot read tools file "${path}": ${(error as Error).message}`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new UsageError(`tools file "${path}" is not valid JSON: ${(error as Error).message}`);
  }
  if (!Array.isArray(value)) {
    throw new UsageError(
      `tools file "${path}" must hold a JSON array of {"name", "description"?, "inputSchema"}, not ${value === null ? 'null' : typeof value}`,
    );
  }
  return value.map((tool, index): ToolDefinition => {
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
}
