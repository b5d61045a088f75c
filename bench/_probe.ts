import {
  executeProtocol,
  hermesProtocol,
  type ToolCallProtocol,
  xmlProtocol,
} from '../src/index.ts';
import { chunksOf, largeArgumentOutput, modelOutput, TOOLS } from './fixtures.ts';
import { peerParse, peerProtocol, peerStream, peerTools } from './peer.ts';

const ptools = peerTools(TOOLS);
function tw(p: ToolCallProtocol, chunks: string[]) {
  const s = p.createStreamParser({ tools: TOOLS });
  let calls = 0;
  for (const c of chunks) for (const e of s.push(c)) if (e.type === 'tool-call') calls++;
  for (const e of s.end()) if (e.type === 'tool-call') calls++;
  return calls;
}
for (const [p, peer] of [
  [xmlProtocol(), 'morphXml'],
  [hermesProtocol(), 'hermes'],
  [executeProtocol(), null],
] as const) {
  const out = modelOutput(p, { calls: 200, targetChars: 200_000, seed: 42 });
  console.log(p.name, out.text.length, out.calls.length);
  for (const size of [1, 8, 256]) {
    const chunks = chunksOf(out.text, size);
    for (let k = 0; k < 2; k++) {
      let t = performance.now();
      const n = tw(p, chunks);
      const a = performance.now() - t;
      let b = NaN,
        m = -1;
      if (peer) {
        t = performance.now();
        const r = await peerStream(peerProtocol(peer), ptools, chunks);
        b = performance.now() - t;
        m = r.calls.length;
      }
      console.log(size, 'tw', n, a.toFixed(1), 'peer', m, b.toFixed(1));
    }
  }
  const big = modelOutput(p, { calls: 1000, targetChars: 1 << 20, seed: 7 });
  let t = performance.now();
  const r = p.parseGeneratedText(big.text, { tools: TOOLS });
  const a = performance.now() - t;
  let b = NaN;
  if (peer) {
    t = performance.now();
    peerParse(peerProtocol(peer), ptools, big.text);
    b = performance.now() - t;
  }
  console.log(
    'pgt',
    big.text.length,
    r.filter((x) => x.type === 'tool-call').length,
    a.toFixed(1),
    b.toFixed(1),
  );
  for (const size of [1 << 20, 4 << 20]) {
    if (!peer) break;
    const o = largeArgumentOutput(p, size, 3);
    const ch = chunksOf(o.text, 8);
    for (let k = 0; k < 2; k++) {
      t = performance.now();
      const n = tw(p, ch);
      console.log('large', size, n, (performance.now() - t).toFixed(1));
    }
  }
}
