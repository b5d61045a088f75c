/**
 * The linear-time checks themselves: they pass linear work, and quadratic work measures far past
 * their bound (so a retried measure cannot pass it).
 */
import { describe, expect, it } from 'vitest';
import { expectLinearGrowth, growthOf, MAX_LINEAR_GROWTH } from './growth.ts';

function linear(text: string): number {
  let sum = 0;
  for (let at = 0; at < text.length; at++) sum += text.charCodeAt(at);
  return sum;
}

function quadratic(text: string): number {
  let sum = 0;
  for (let at = 0; at < text.length; at++) {
    for (let back = 0; back < at; back += 1) sum += text.charCodeAt(back) & 1;
  }
  return sum;
}

describe('expectLinearGrowth', () => {
  it('passes work linear in its input', () => {
    expectLinearGrowth((size) => 'x'.repeat(size), linear, 20_000);
  });

  it('measures quadratic work far past the bound', () => {
    // Load only ever adds time, to either run: a quadratic growth shows in the first measure the
    // load leaves alone (256 times), so the largest of a few is taken.
    let largest = 0;
    for (let measure = 0; measure < 4 && largest <= MAX_LINEAR_GROWTH; measure++) {
      largest = Math.max(largest, growthOf((size) => 'x'.repeat(size), quadratic, 200).ratio);
    }
    expect(largest).toBeGreaterThan(MAX_LINEAR_GROWTH);
  });
});
