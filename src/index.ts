export * from './core/index.ts';
export {
  executeProtocol,
  type HermesProtocolOptions,
  hermesProtocol,
  isProtocolName,
  PROTOCOL_NAMES,
  type ProtocolName,
  protocolByName,
  xmlProtocol,
} from './protocols/index.ts';
