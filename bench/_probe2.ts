import { hermesProtocol, xmlProtocol } from '../src/index.ts';
import { chunksOf, largeArgumentOutput, TOOLS } from './fixtures.ts';
import { peerProtocol, peerStream, peerTools } from './peer.ts';

const ptools = peerTools(TOOLS);
for (const [p, peer] of [
  [xmlProtocol(), 'morphXml'],
  [hermesProtocol(), 'hermes'],
] as const) {
  for (const size of [16 << 10, 64 << 10, 256 << 10]) {
    const o = largeArgumentOutput(p, size, 3);
    const ch = chunksOf(o.text, 8);
    const t = performance.now();
    const r = await peerStream(peerProtocol(peer), ptools, ch);
    console.log(
      peer,
      size,
      r.calls.length,
      r.calls[0]?.input.length,
      (performance.now() - t).toFixed(1),
    );
    if (performance.now() - t > 20000) break;
  }
}
