import type { ToolCallProtocol } from '../core/index.ts';
import { executeProtocol } from './execute/index.ts';
import { type HermesProtocolOptions, hermesProtocol } from './hermes/index.ts';
import { xmlProtocol } from './xml/index.ts';

export { executeProtocol, type HermesProtocolOptions, hermesProtocol, xmlProtocol };

export const PROTOCOL_NAMES = ['xml', 'hermes', 'execute'] as const;
export type ProtocolName = (typeof PROTOCOL_NAMES)[number];

/** The protocol of that name with its default settings. */
export function protocolByName(name: ProtocolName): ToolCallProtocol {
  switch (name) {
    case 'xml':
      return xmlProtocol();
    case 'hermes':
      return hermesProtocol();
    case 'execute':
      return executeProtocol();
  }
}

export function isProtocolName(name: string): name is ProtocolName {
  return (PROTOCOL_NAMES as readonly string[]).includes(name);
}
