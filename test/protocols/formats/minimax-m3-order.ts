/**
 * vLLM's MiniMax-M3 order call (`build_order_call`, tests/tool_parsers/
 * test_minimax_m3_tool_parser.py): its tool, the call written with a given prefix before every
 * tag (`]<]minimax[>[`, or the same set off by a space), and the input it reads as.
 */
import type { ToolDefinition } from '../../../src/index.ts';

export const NS = ']<]minimax[>[';

export const createOrder: ToolDefinition = {
  name: 'create_order',
  inputSchema: {
    type: 'object',
    properties: {
      user_id: { type: 'integer' },
      urgent: { type: 'boolean' },
      note: { type: 'string' },
      shipping: {
        type: 'object',
        properties: { city: { type: 'string' }, zip: { type: 'integer' } },
      },
      items: {
        type: 'array',
        items: {
          type: 'object',
          properties: { sku: { type: 'string' }, qty: { type: 'integer' } },
        },
      },
      metadata: { type: 'object', additionalProperties: { type: 'string' } },
      duplicate_demo: { type: 'object' },
    },
  },
};

/** The order call, with `prefix` before every tag. */
export function orderCall(prefix: string): string {
  const el = (key: string, value: string) => `${prefix}<${key}>${value}${prefix}</${key}>`;
  return (
    `${prefix}<invoke name="create_order">` +
    el('user_id', '42') +
    el('urgent', 'true') +
    el('note', 'Please leave at front desk.') +
    el('shipping', el('city', 'Singapore') + el('zip', '018956')) +
    el(
      'items',
      el('item', el('sku', 'book-001') + el('qty', '2')) +
        el('item', el('sku', 'pen-007') + el('qty', '5')),
    ) +
    el('metadata', el('source', 'mobile') + el('campaign', 'may-launch')) +
    el('duplicate_demo', el('tag', 'a') + el('tag', 'b')) +
    `${prefix}</invoke>`
  );
}

export const ORDER_INPUT = {
  user_id: 42,
  urgent: true,
  note: 'Please leave at front desk.',
  shipping: { city: 'Singapore', zip: 18956 },
  items: [
    { sku: 'book-001', qty: 2 },
    { sku: 'pen-007', qty: 5 },
  ],
  metadata: { source: 'mobile', campaign: 'may-launch' },
  duplicate_demo: { tag: ['a', 'b'] },
};
