import type { ServerStatus } from './api.ts';
import { el } from './dom.ts';

/**
 * The notice the page shows as soon as it opens when no model server answers: where the server
 * looked, why nothing answered, and, when the server has a recording, a button that plays it.
 * Every text goes in as text (the problem is the server's words, never markup).
 */
export function showModelNotice(
  notice: HTMLElement,
  status: ServerStatus,
  onWatch: () => void,
): HTMLButtonElement | undefined {
  if (status.mode !== 'live' || status.modelServer !== 'no-answer') {
    notice.hidden = true;
    notice.replaceChildren();
    return undefined;
  }
  const where = status.baseURL ?? 'the configured address';
  const watch =
    status.recording === undefined
      ? undefined
      : el('button', {
          text: 'Watch the recorded run',
          attrs: { id: 'watch-recording', type: 'button', class: 'primary' },
        });
  watch?.addEventListener('click', onWatch);
  notice.replaceChildren(
    el('strong', { text: 'No model server' }),
    el('p', {
      text: `No model server answers at ${where}: start one${watch ? ', or watch the recorded run' : ''}.`,
    }),
    el('p', {
      class: 'hint',
      text:
        'For example, start Ollama with “ollama serve”, then reload this page.' +
        (status.problem ? ` (What happened: ${status.problem}.)` : ''),
    }),
    ...(watch ? [el('div', { class: 'form-actions' }, watch)] : []),
  );
  notice.hidden = false;
  return watch;
}
