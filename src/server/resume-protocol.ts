import type { ToolCallProtocol } from '../core/protocol.ts';
import { HttpError } from '../http/http-error.ts';
import type { ProtocolName } from '../protocols/index.ts';
import type { StoredRun } from '../store/run-store.ts';
import type { ServerSettings } from './options.ts';

/**
 * The protocol a paused run goes on in: its format's name, or this server's own protocol object
 * when the run was started in one of that name. A run started in a protocol object this server
 * does not have (a store keeps only its name) is a 409: another instance must answer it.
 * `subject` names the run in that message (`run r1`, `POST /api/ag-ui: the thread's run`).
 */
export function resumeProtocol(
  settings: ServerSettings,
  run: StoredRun,
  subject = `run ${run.runId}`,
): ProtocolName | ToolCallProtocol {
  if (!run.customProtocol) return run.protocol as ProtocolName;
  const own = settings.defaultProtocol;
  if (typeof own !== 'string' && own.name === run.protocol) return own;
  throw new HttpError(
    409,
    `${subject} was started in the protocol object ${JSON.stringify(run.protocol)}, which this server does not have; answer it on a server configured with it`,
  );
}
