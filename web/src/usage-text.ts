import type { JsonValue } from '../../src/stream/index.ts';

/**
 * `meta_final`'s `cumulative_usage` in words for the page. A count that is not a number (null:
 * the model server reported none) is "unknown", never shown as 0.
 */
export function usageText(usage: JsonValue | undefined): string {
  const counts =
    typeof usage === 'object' && usage !== null && !Array.isArray(usage)
      ? (usage as { readonly [key: string]: JsonValue })
      : undefined;
  const input = tokenCount(counts?.input_tokens);
  const output = tokenCount(counts?.output_tokens);
  if (input === undefined && output === undefined) return 'usage unknown';
  return `${input ?? 'unknown'} input / ${output ?? 'unknown'} output tokens`;
}

function tokenCount(value: JsonValue | undefined): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}
