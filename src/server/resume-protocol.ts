import type { ToolCallProtocol } from '../core/protocol.ts';
import type { ProtocolName } from '../protocols/index.ts';
import type { StoredRun } from '../store/run-store.ts';
import type { ServerSettings } from './options.ts';

/**
 * The protocol a paused run goes on in: its format's name, or this server's own protocol object
 * when the run was started in one of that name. Undefined when the run was started in a protocol
 * object this server does not have (a store keeps only its name): another instance must answer.
 */
export function resumeProtocol(
  settings: ServerSettings,
  run: StoredRun,
): ProtocolName | ToolCallProtocol | undefined {
  if (!run.customProtocol) return run.protocol as ProtocolName;
  const own = settings.defaultProtocol;
  return typeof own !== 'string' && own.name === run.protocol ? own : undefined;
}
