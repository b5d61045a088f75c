/** Checks of AG-UI SSE frames as `@ag-ui/client` reads them, for the tests of the AG-UI routes. */
import { type BaseEvent, verifyEvents } from '@ag-ui/client';
import { EventSchemas } from '@ag-ui/core/schemas';
import { from, lastValueFrom, toArray } from 'rxjs';
import { expect } from 'vitest';
import { parseJsonText } from '../../src/core/parse-json.ts';

/** The events in SSE frames, each frame one `data:` line and a blank line. */
export function agUiEventsOf(frames: readonly string[]): BaseEvent[] {
  return frames.map((frame) => {
    expect(frame).toMatch(/^data: [^\n]*\n\n$/);
    return parseJsonText(frame.slice('data: '.length)) as BaseEvent;
  });
}

/**
 * Expects the frames to be a whole AG-UI run: every event valid, the sequence one `verifyEvents`
 * accepts, ending with its one RUN_FINISHED or RUN_ERROR. Returns the events.
 */
export async function expectWellFormedAgUi(frames: readonly string[]): Promise<BaseEvent[]> {
  const events = agUiEventsOf(frames);
  for (const event of events) EventSchemas.parse(event);
  await expect(lastValueFrom(from(events).pipe(verifyEvents(), toArray()))).resolves.toHaveLength(
    events.length,
  );
  const terminal = events.filter((e) => e.type === 'RUN_FINISHED' || e.type === 'RUN_ERROR');
  expect(terminal).toHaveLength(1);
  expect(events.at(-1)).toBe(terminal[0]);
  return events;
}
