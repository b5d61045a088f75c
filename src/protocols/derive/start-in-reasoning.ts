import type { ParseOptions, ToolCallProtocol } from '../../core/index.ts';

/**
 * `protocol`, with its parsers starting inside reasoning unless the caller says otherwise: for a
 * chat template whose generation prompt leaves `<think>` open. Everything else is the protocol's
 * own (the result inherits from it).
 */
export function startingInReasoning(protocol: ToolCallProtocol): ToolCallProtocol {
  const withDefault = (options: ParseOptions): ParseOptions =>
    options.startInReasoning === undefined ? { ...options, startInReasoning: true } : options;
  const wrapped: ToolCallProtocol = Object.create(protocol);
  return Object.assign(wrapped, {
    parseGeneratedText: (text: string, options: ParseOptions) =>
      protocol.parseGeneratedText(text, withDefault(options)),
    createStreamParser: (options: ParseOptions) =>
      protocol.createStreamParser(withDefault(options)),
    extractToolCallSegments: (text: string, options: ParseOptions) =>
      protocol.extractToolCallSegments(text, withDefault(options)),
  });
}
