/**
 * Where toolwire's content-block decoder deliberately differs from the reference front end
 * (AuroSoni/anthropic-agent), by case id of content-block-stream-parser.json, with the reason.
 * A listed case that starts to match fails its test, so this list cannot go stale.
 *
 * Comparison rules, not deviations (test/stream/reference-nodes.ts): JSON in `data` attributes
 * and in meta_files/error bodies is compared as values, since the reference's back end wrote it
 * with Python's separators; a block whose `data` is not JSON is shown from the decode problem,
 * which keeps the block's tag and decoded attributes.
 */
export const CONTENT_BLOCK_DEVIATIONS: Readonly<Record<string, string>> = {
  'B-integration_test_parses_full_xml_stream_example_correctly':
    'CDATA is kept byte-exact; the reference turns every backslash-n pair in text into a newline, which corrupts the escaped \\n inside these tool results',
  'B-streaming_behavior_handles_incremental_chunk_appending':
    'a half-received tag (`<content-block-`) is held until its `>` arrives instead of being shown as text and then taken back; events are never retracted',
  'B-edge_cases_handles_reset_correctly':
    'the decoder keeps no copy of the raw stream (bounded memory, nothing parsed twice), so there is no getRawContent(); reset itself matches',
  'B-getrawcontent_returns_accumulated_buffer_content':
    'the decoder keeps no copy of the raw stream (bounded memory, nothing parsed twice), so there is no getRawContent()',
};
