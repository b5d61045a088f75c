import { hermesProtocol, morphXmlProtocol, type TCMProtocol } from '@ai-sdk-tool/parser';
import type { ParseEvent, ToolCallProtocol, ToolDefinition } from '../src/index.ts';

// Types come from the peer's own signatures, so bench needs no direct @ai-sdk/provider import.
type PeerStreamArgs = Parameters<TCMProtocol['createStreamParser']>[0];
export type PeerTool = PeerStreamArgs['tools'][number];
type PeerTransform = ReturnType<TCMProtocol['createStreamParser']>;
type PeerPart = PeerTransform extends TransformStream<infer Part, unknown> ? Part : never;

export type PeerProtocolName = 'morphXml' | 'hermes';

export function peerProtocol(name: PeerProtocolName): TCMProtocol {
  return name === 'morphXml' ? morphXmlProtocol() : hermesProtocol();
}

/** toolwire tools as AI SDK LanguageModelV3 function tools. */
export function peerTools(tools: readonly ToolDefinition[]): PeerTool[] {
  return tools.map((tool) => ({
    type: 'function',
    name: tool.name,
    ...(tool.description === undefined ? {} : { description: tool.description }),
    inputSchema: tool.inputSchema as PeerTool['inputSchema'],
  }));
}

/** What a driven stream produced: part count and the tool calls (name and JSON input). */
export interface StreamOutcome {
  parts: number;
  calls: { toolName: string; input: string }[];
}

interface CallPart {
  type: 'tool-call';
  toolName: string;
  input: string;
}

function isCallPart(part: unknown): part is CallPart {
  return (part as { type?: unknown }).type === 'tool-call';
}

/**
 * Feeds `chunks` as text-delta parts through `stream` while one reader drains every output part.
 * Each write is awaited: as cheap as queueing them all (measured on identity streams) and a
 * stream error surfaces here instead of as unhandled rejections.
 */
export async function driveTransform(
  stream: TransformStream<PeerPart, unknown>,
  chunks: Iterable<string>,
): Promise<StreamOutcome> {
  const writer = stream.writable.getWriter();
  const reader = stream.readable.getReader();
  const outcome: StreamOutcome = { parts: 0, calls: [] };
  const reading = (async () => {
    for (;;) {
      const result = await reader.read();
      if (result.done) return;
      outcome.parts++;
      const part = result.value;
      if (isCallPart(part)) outcome.calls.push({ toolName: part.toolName, input: part.input });
    }
  })();
  // Marked handled so a failing write does not also leave an unhandled rejection; awaited below.
  reading.catch(() => {});
  for (const delta of chunks) await writer.write({ type: 'text-delta', id: 't0', delta });
  await Promise.all([reading, writer.close()]);
  return outcome;
}

/** The peer's own stream parser, driven through its TransformStream. */
export function peerStream(
  protocol: TCMProtocol,
  tools: PeerTool[],
  chunks: Iterable<string>,
): Promise<StreamOutcome> {
  return driveTransform(protocol.createStreamParser({ tools }), chunks);
}

/**
 * toolwire's push parser inside a TransformStream that takes and gives AI SDK parts, so it pays
 * the same web-stream plumbing as the peer.
 */
export function toolwireTransform(
  protocol: ToolCallProtocol,
  tools: readonly ToolDefinition[],
): TransformStream<PeerPart, ParseEvent> {
  const parser = protocol.createStreamParser({ tools });
  return new TransformStream<PeerPart, ParseEvent>({
    transform(part, controller) {
      if (part.type !== 'text-delta') return;
      for (const event of parser.push(part.delta)) controller.enqueue(event);
    },
    flush(controller) {
      for (const event of parser.end()) controller.enqueue(event);
    },
  });
}

/** A pass-through TransformStream: the cost of the plumbing alone. */
export function identityTransform(): TransformStream<PeerPart, PeerPart> {
  return new TransformStream<PeerPart, PeerPart>();
}

/** The peer's whole-text parse; returns its tool calls. */
export function peerParse(
  protocol: TCMProtocol,
  tools: PeerTool[],
  text: string,
): { toolName: string; input: string }[] {
  const calls: { toolName: string; input: string }[] = [];
  for (const part of protocol.parseGeneratedText({ text, tools })) {
    if (part.type === 'tool-call') calls.push({ toolName: part.toolName, input: part.input });
  }
  return calls;
}
