import { describe, expect, it } from 'vitest';
import type { JsonSchema, ToolDefinition } from '../../src/index.ts';
import { cacheToolsSection } from '../../src/protocols/prompt/tools-section-cache.ts';

const schema: JsonSchema = { type: 'object', properties: { city: { type: 'string' } } };
const tool = (description: string, inputSchema: JsonSchema = schema): ToolDefinition => ({
  name: 'get_weather',
  description,
  inputSchema,
});

describe('cacheToolsSection', () => {
  it('renders a list once, and again for new tool objects only when what is shown changes', () => {
    const rendered: string[] = [];
    const format = cacheToolsSection((tools) => {
      const section = tools.map((t) => `${t.name}: ${t.description}`).join('\n');
      rendered.push(section);
      return section;
    });
    expect(format([tool('Weather')])).toBe('get_weather: Weather');
    // New tool objects around the same schema, as the AI SDK makes at every step.
    expect(format([tool('Weather')])).toBe('get_weather: Weather');
    expect(rendered).toHaveLength(1);
    expect(format([tool('Weather now')])).toBe('get_weather: Weather now');
    // Another schema object (even an equal one) is rendered again.
    format([tool('Weather', { ...(schema as object) })]);
    expect(rendered).toHaveLength(3);
    format([tool('Weather'), tool('Weather')]);
    expect(rendered).toHaveLength(4);
  });
});
