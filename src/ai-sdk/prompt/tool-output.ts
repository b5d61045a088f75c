import type { ToolResponseToFormat } from '../../core/index.ts';

/**
 * A tool result's `output` as the AI SDK puts it in the prompt. Written loosely so that one
 * function reads both the V4 shapes (`file` parts with a `data` union) and the V3 ones
 * (`file-data`, `image-url`, …).
 */
export type ToolResultOutput =
  | { readonly type: 'text' | 'error-text'; readonly value: string }
  | { readonly type: 'json' | 'error-json'; readonly value: unknown }
  | { readonly type: 'execution-denied'; readonly reason?: string }
  | { readonly type: 'content'; readonly value: readonly ContentPart[] };

type ContentPart = { readonly type: string } & Readonly<Record<string, unknown>>;

/** A result the model can only be told about: which kind of file, where it is, that it is left out. */
function fileNote(kind: string, mediaType: unknown, name: unknown, location?: unknown): string {
  const details = [name, mediaType, location].filter(
    (detail): detail is string => typeof detail === 'string' && detail.length > 0,
  );
  const label = kind === 'image' || String(mediaType).startsWith('image') ? 'image' : 'file';
  return `[${label}${details.length > 0 ? `: ${details.join(', ')}` : ''} — not shown, this model reads text only]`;
}

function urlText(url: unknown): string | undefined {
  if (typeof url === 'string') return url;
  if (url instanceof URL) return url.href;
  return undefined;
}

/** One part of a `content` output as text: text as is, files and images as a note. */
function contentPartText(part: ContentPart): string {
  switch (part.type) {
    case 'text':
      return typeof part.text === 'string' ? part.text : '';
    case 'file': {
      // V4: the data is a tagged union; inline text documents can be shown as they are.
      const data = part.data as { type?: string; text?: unknown; url?: unknown } | undefined;
      if (data?.type === 'text' && typeof data.text === 'string') return data.text;
      const location = data?.type === 'url' ? urlText(data.url) : undefined;
      return fileNote('file', part.mediaType, part.filename, location);
    }
    case 'image-data':
    case 'image-url':
    case 'image-file-id':
      return fileNote('image', part.mediaType, undefined, urlText(part.url));
    case 'file-data':
    case 'file-url':
    case 'file-id':
      return fileNote('file', part.mediaType, part.filename, urlText(part.url));
    default:
      return `[${part.type} content — not shown]`;
  }
}

/** What a `tool-result` part says, in the form a protocol's `formatToolResponse` renders. */
export function toolResponseOf(
  toolName: string,
  toolCallId: string,
  output: ToolResultOutput,
): ToolResponseToFormat {
  switch (output.type) {
    case 'text':
    case 'json':
      return { toolName, toolCallId, output: output.value };
    case 'error-text':
      return { toolName, toolCallId, output: output.value, isError: true };
    case 'error-json':
      // An error is told as text; formatters print error values as text (String() of an object
      // would lose it).
      return {
        toolName,
        toolCallId,
        output: JSON.stringify(output.value) ?? 'null',
        isError: true,
      };
    case 'execution-denied':
      return {
        toolName,
        toolCallId,
        output: output.reason
          ? `The user denied running this tool call: ${output.reason}`
          : 'The user denied running this tool call.',
        isError: true,
      };
    case 'content':
      return { toolName, toolCallId, output: output.value.map(contentPartText).join('\n') };
    default: {
      // An output type newer than this code: say so rather than drop the result.
      const unknownType = (output as { type?: unknown }).type;
      return {
        toolName,
        toolCallId,
        output: `[tool output of type ${JSON.stringify(unknownType)} — not shown]`,
      };
    }
  }
}
