/**
 * The scripted model reads the tool prompts the project renders and writes calls its parsers read
 * back: checked here, cheaply, before the large end-to-end runs depend on it.
 *
 *   npx vitest run scripts/e2e/ (part of npm test)
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'vitest';
import { protocolByName, type ToolDefinition } from '../../src/index.ts';
import {
  markerCommand,
  type ScriptedFormat,
  scriptedReply,
  startScriptedModel,
} from './scripted-model.ts';

const MARKER = 'toolwire-e2e-123';

/** The shell tools of the clients the scripts run, as they declare them. */
const SHELL_TOOLS: { tool: ToolDefinition; expected: Record<string, unknown> }[] = [
  {
    tool: {
      name: 'exec_command',
      description: 'Runs a command in a PTY.',
      inputSchema: {
        type: 'object',
        properties: { cmd: { type: 'string' }, workdir: { type: 'string' } },
        required: ['cmd'],
      },
    },
    expected: { cmd: markerCommand(MARKER) },
  },
  {
    tool: {
      name: 'shell',
      description: 'Runs a shell command.',
      inputSchema: {
        type: 'object',
        properties: { command: { type: 'array', items: { type: 'string' } } },
        required: ['command'],
      },
    },
    expected: { command: ['bash', '-lc', markerCommand(MARKER)] },
  },
  {
    tool: {
      name: 'Bash',
      description: 'Executes a bash command.',
      inputSchema: {
        type: 'object',
        properties: { command: { type: 'string' }, description: { type: 'string' } },
        required: ['command'],
      },
    },
    expected: { command: markerCommand(MARKER), description: 'Write the toolwire e2e marker file' },
  },
];

const OTHER_TOOL: ToolDefinition = {
  name: 'view_image',
  description: 'Shows an image.',
  inputSchema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
};

for (const format of ['hermes', 'qwen3-coder'] as const satisfies readonly ScriptedFormat[]) {
  describe(`scripted model, ${format}`, () => {
    const protocol = protocolByName(format);
    for (const { tool, expected } of SHELL_TOOLS) {
      it(`calls ${tool.name} in markup the ${format} parser reads back`, () => {
        const tools = [OTHER_TOOL, tool];
        const system = `You are an agent.\n\n${protocol.formatTools(tools)}`;
        const reply = scriptedReply(
          [
            { role: 'system', content: system },
            { role: 'user', content: 'Write the marker.' },
          ],
          MARKER,
        );
        assert.equal(reply.kind, 'call');
        assert.equal(reply.format, format, 'the format is told from the prompt');
        const calls = protocol
          .parseGeneratedText(reply.text, { tools })
          .filter((part) => part.type === 'tool-call');
        assert.equal(calls.length, 1);
        assert.equal(calls[0]?.toolName, tool.name);
        assert.deepEqual(JSON.parse(calls[0]?.input ?? 'null'), expected);
      });
    }

    it('answers with the marker once a tool result holds it, and does not loop without it', () => {
      const tool = SHELL_TOOLS[0]!.tool;
      const system = { role: 'system', content: protocol.formatTools([tool]) };
      const call = { role: 'assistant', content: `running ${markerCommand(MARKER)}` };
      const withResult = scriptedReply(
        [system, { role: 'user', content: 'go' }, call, { role: 'user', content: MARKER }],
        MARKER,
      );
      assert.equal(withResult.kind, 'final');
      assert.match(withResult.text, new RegExp(MARKER));
      const withoutMarker = scriptedReply(
        [system, { role: 'user', content: 'go' }, call, { role: 'user', content: 'error' }],
        MARKER,
      );
      assert.equal(withoutMarker.kind, 'no-marker');
    });

    it('answers a request with no shell tool in plain text', () => {
      const reply = scriptedReply([{ role: 'user', content: 'Title this chat.' }], MARKER);
      assert.deepEqual([reply.kind, reply.text], ['plain', 'OK.']);
    });
  });
}

describe('scripted model server', () => {
  it('streams the reply as chat completion chunks and logs the request', async () => {
    const logFile = join(mkdtempSync(join(tmpdir(), 'scripted-model-test-')), 'requests.jsonl');
    const model = await startScriptedModel({ marker: MARKER, logFile });
    try {
      const response = await fetch(`${model.baseUrl}/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          model: 'm',
          stream: true,
          stream_options: { include_usage: true },
          messages: [{ role: 'user', content: 'hi' }],
        }),
      });
      const events = (await response.text())
        .split('\n\n')
        .filter((event) => event.startsWith('data: '))
        .map((event) => event.slice('data: '.length));
      assert.equal(events.at(-1), '[DONE]');
      const chunks = events.slice(0, -1).map((event) => JSON.parse(event));
      const text = chunks.map((chunk) => chunk.choices[0]?.delta?.content ?? '').join('');
      assert.equal(text, 'OK.');
      assert.ok(chunks.at(-1).usage, 'a usage chunk ends the stream');
      const logged = readFileSync(logFile, 'utf8')
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line));
      assert.equal(logged.length, 1);
      assert.equal(logged[0].reply.kind, 'plain');
    } finally {
      await model.close();
    }
  });
});
