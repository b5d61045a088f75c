import { ToolwireError } from '../core/errors.ts';

/**
 * A write to a run under a lease this instance no longer holds: the run was finished, declared
 * lost by a sweep, or claimed again. The writer stops; whatever it would have written is moot.
 */
export class RunLostError extends ToolwireError {
  declare readonly kind: 'run-lost';
  readonly runId: string;

  constructor(runId: string) {
    super(
      'run-lost',
      `the run ${JSON.stringify(runId)} is no longer this instance's to write: its lease was lost or the run was ended`,
    );
    this.runId = runId;
  }
}

/** A run (or its event log) started under an id that is in use. */
export class RunExistsError extends ToolwireError {
  declare readonly kind: 'request-refused';
  readonly id: string;

  constructor(what: 'run' | 'log', id: string) {
    super('request-refused', `the ${what} id ${JSON.stringify(id)} is already in use`);
    this.id = id;
  }
}

/** A log read after something that is not an event id (`MS-SEQ`): a client's header, unchecked. */
export class InvalidEventIdError extends ToolwireError {
  declare readonly kind: 'request-refused';
  readonly eventId: string;

  constructor(eventId: string) {
    super(
      'request-refused',
      `${JSON.stringify(eventId.slice(0, 64))} is not an event id (two whole numbers, MS-SEQ)`,
    );
    this.eventId = eventId;
  }
}
