/**
 * Where toolwire deliberately differs from a reference implementation, by case id, with the reason.
 * Seeds win over reference code; issues win over seeds. A listed case that starts to match fails
 * its test, so this list cannot go stale.
 */

// ── probe-xml-protocol.json (Probe, seed 000) ──────────────────────────────────────────────────

const UNCLOSED_REASONING =
  'nothing inside reasoning is ever a call (issue 2): a <thinking> left open runs to the end of the output; Probe instead guessed where it should have closed';
const UNCLOSED_PARAMETER =
  'a parameter value may contain tags and runs to its own closing tag (issue 2), so a tag of another parameter inside an unclosed value is content; Probe guessed an implicit close';
const WRAPPED_CALL =
  'detectUnrecognizedToolCall is a correction hint of the agent loop (issue 4), not a parser function';
const PREVIOUS_RESPONSE =
  'Probe substituted its previous answer for an empty <attempt_completion>; the parser reports the cut-off call instead (not valid: result missing)';
const ENTITIES_DECODED =
  'entities are decoded in every value (issue 2, seed 000 rule 4); late Probe kept them raw in attempt_completion only';
const EMPTY_COMPLETION =
  'an empty attempt_completion is reported as missing its required result, so the model is told, rather than accepted as an empty answer';
const RESULT_CHILD =
  'the seed (and issue 2) read <attempt_completion><result>…</result></attempt_completion> as the result parameter; late Probe kept the <result> tag as text';
const NESTED_REASONING_TAIL =
  'nested <thinking> tags balance, and the text after the inner block is reasoning too; Probe dropped "outer end"';
const REASONING_DOES_NOT_NEST =
  'reasoning blocks do not nest (issue 13, from a real agent that left a <thinking> open and later wrote a closed one): the first closer ends reasoning, so a doubled <thinking><thinking>…</thinking></thinking> keeps the inner opener as reasoning text and the second closer as text; Probe unwrapped them';
const CUT_OFF_VALUE =
  'a call cut inside a parameter value is reported (incomplete-call) and never run, since the value may be cut short (issue 13); Probe completed it';

const CUT_OFF_DIRECT_TEXT =
  'text written directly in the tool tag ends only at its closing tag, so an output that ends before it may have cut the text short: the call is reported (incomplete-call) and never run (issues 13 and 20); Probe completed it';
const FIRST_CLOSER_CLOSES =
  'the first </tool> that closes no <tool> opened in the text written directly in the tool tag ends the call, as in XML (issue 20; seed 000 rule 4 has content escape markup): text after it is text; Probe took the last one';

export const PROBE_DEVIATIONS: Readonly<Record<string, string>> = {
  'C-xml_tool_call_parsing_unclosed_attempt_completion_tag_handling_should_handle_attempt_completion_with_content_b':
    CUT_OFF_DIRECT_TEXT,
  'C-xml_tool_call_parsing_unclosed_attempt_completion_tag_handling_should_handle_attempt_completion_with_text_cont':
    CUT_OFF_DIRECT_TEXT,
  'C-xml_tool_call_parsing_unclosed_attempt_completion_tag_handling_should_prioritize_attempt_completion_over_other':
    CUT_OFF_DIRECT_TEXT,
  'C-attempt_completion_with_closing_tag_in_content_should_handle_content_with_closing_tag_string_in_plain_text':
    FIRST_CLOSER_CLOSES,
  'C-attempt_completion_with_closing_tag_in_content_should_handle_multiple_occurrences_of_closing_tag_string_in_con':
    FIRST_CLOSER_CLOSES,
  'C-attempt_completion_with_closing_tag_in_content_should_handle_closing_tag_in_markdown_code_block':
    FIRST_CLOSER_CLOSES,
  'C-attempt_completion_with_closing_tag_in_content_should_handle_nested_xml_like_content':
    FIRST_CLOSER_CLOSES,
  'C-xml_tool_call_parsing_unclosed_attempt_completion_tag_handling_should_handle_empty_attempt_completion_tag_with':
    PREVIOUS_RESPONSE,
  'C-xml_tool_call_parsing_unclosed_thinking_tag_handling_should_remove_unclosed_thinking_tag_and_its_content':
    UNCLOSED_REASONING,
  'C-xml_tool_call_parsing_unclosed_parameter_tag_handling_should_handle_parameter_without_closing_tag_followed_by_':
    UNCLOSED_PARAMETER,
  'C-xml_tool_call_parsing_unclosed_parameter_tag_handling_should_handle_multiple_unclosed_parameter_tags':
    UNCLOSED_PARAMETER,
  'C-xml_tool_call_parsing_unclosed_parameter_tag_handling_should_handle_unclosed_param_with_multiline_content':
    UNCLOSED_PARAMETER,
  'C-xml_tool_call_parsing_bash_tool_parsing_should_handle_bash_tool_with_unclosed_thinking_tag':
    UNCLOSED_REASONING,
  'C-xml_tool_call_parsing_bash_tool_parsing_should_handle_bash_tool_directly_attached_to_text_no_newline':
    UNCLOSED_REASONING,
  'C-xml_tool_call_parsing_complex_unclosed_tag_scenarios_should_handle_unclosed_thinking_unclosed_tool':
    UNCLOSED_REASONING,
  'C-xml_tool_call_parsing_complex_unclosed_tag_scenarios_should_handle_mixed_properly_closed_and_unclosed_tags':
    UNCLOSED_PARAMETER,
  'C-xml_tool_call_parsing_edit_and_create_tool_parsing_issue_349_should_handle_edit_tool_with_unclosed_tags':
    UNCLOSED_PARAMETER,
  'C-xml_tool_call_parsing_edit_and_create_tool_parsing_issue_349_should_handle_create_tool_with_unclosed_tags':
    UNCLOSED_PARAMETER,
  'C-xml_tool_call_parsing_wrapped_tool_call_detection_issue_api_call_infinite_loop_detectunrecognizedtoolcall_with':
    WRAPPED_CALL,
  'C-xml_tool_call_parsing_wrapped_tool_call_detection_issue_api_call_infinite_loop_detectunrecognizedtoolcall_with_':
    WRAPPED_CALL,
  'C-xml_tool_call_parsing_wrapped_tool_call_detection_issue_api_call_infinite_loop_detectunrecognizedtoolcall_with__':
    WRAPPED_CALL,
  'C-xml_tool_call_parsing_wrapped_tool_call_detection_issue_api_call_infinite_loop_detectunrecognizedtoolcall_with___':
    WRAPPED_CALL,
  'C-xml_tool_call_parsing_wrapped_tool_call_detection_issue_api_call_infinite_loop_detectunrecognizedtoolcall_with____':
    WRAPPED_CALL,
  'C-xml_tool_call_parsing_wrapped_tool_call_detection_issue_api_call_infinite_loop_detectunrecognizedtoolcall_with_____':
    WRAPPED_CALL,
  'C-xml_tool_call_parsing_wrapped_tool_call_detection_issue_api_call_infinite_loop_detectunrecognizedtoolcall_with______':
    WRAPPED_CALL,
  'C-xml_tool_call_parsing_wrapped_tool_call_detection_issue_api_call_infinite_loop_detectunrecognizedtoolcall_with_______':
    WRAPPED_CALL,
  'C-xml_tool_call_parsing_wrapped_tool_call_detection_issue_api_call_infinite_loop_detectunrecognizedtoolcall_with________':
    WRAPPED_CALL,
  'C-xml_tool_call_parsing_wrapped_tool_call_detection_issue_api_call_infinite_loop_detectunrecognizedtoolcall_with_________':
    WRAPPED_CALL,
  'C-issue_439_removethinkingtags_destroys_json_output_extractthinkingcontent_should_handle_nested_thinking_tags_sh___':
    NESTED_REASONING_TAIL,
  'C-issue_439_removethinkingtags_destroys_json_output_extractthinkingcontent_should_handle_nested_thinking_tags_sh':
    REASONING_DOES_NOT_NEST,
  'C-issue_439_removethinkingtags_destroys_json_output_extractthinkingcontent_should_handle_nested_thinking_tags_sh_':
    REASONING_DOES_NOT_NEST,
  'C-issue_439_removethinkingtags_destroys_json_output_extractthinkingcontent_should_handle_nested_thinking_tags_sh__':
    REASONING_DOES_NOT_NEST,
  'C-issue_439_removethinkingtags_destroys_json_output_extractthinkingcontent_should_handle_nested_thinking_tags_sh____':
    REASONING_DOES_NOT_NEST,
  'C-issue_439_removethinkingtags_destroys_json_output_extractthinkingcontent_should_handle_nested_thinking_tags_pr':
    REASONING_DOES_NOT_NEST,
  'C-issue_439_removethinkingtags_destroys_json_output_real_scenario_auto_wrapped_content_with_nested_thinking_extr':
    REASONING_DOES_NOT_NEST,
  'C-issue_439_removethinkingtags_destroys_json_output_previous_response_length_based_heuristic_edge_cases_nested_t':
    REASONING_DOES_NOT_NEST,
  'C-xml_tool_call_parsing_unclosed_tool_tag_handling_should_handle_search_tool_without_closing_tag':
    CUT_OFF_VALUE,
  'C-xml_tool_call_parsing_unclosed_tool_tag_handling_should_handle_extract_tool_without_closing_tag':
    CUT_OFF_VALUE,
  'C-xml_tool_call_parsing_unclosed_tool_tag_handling_should_handle_query_tool_without_closing_tag':
    CUT_OFF_VALUE,
  'C-xml_tool_call_parsing_unclosed_tool_tag_handling_should_handle_listfiles_tool_without_closing_tag':
    CUT_OFF_VALUE,
  'C-xml_tool_call_parsing_complex_unclosed_tag_scenarios_should_handle_tool_and_param_both_unclosed':
    CUT_OFF_VALUE,
  'C-issue_459_removethinkingtags_drops_edit_create_tool_calls_in_unclosed_thinking_tags_removethinkingtags_bug_wit__':
    UNCLOSED_REASONING,
  'C-issue_459_removethinkingtags_drops_edit_create_tool_calls_in_unclosed_thinking_tags_removethinkingtags_fix_wit':
    UNCLOSED_REASONING,
  'C-issue_459_removethinkingtags_drops_edit_create_tool_calls_in_unclosed_thinking_tags_removethinkingtags_fix_wit_':
    UNCLOSED_REASONING,
  'C-issue_459_removethinkingtags_drops_edit_create_tool_calls_in_unclosed_thinking_tags_parsexmltoolcallwiththinki':
    UNCLOSED_REASONING,
  'C-issue_459_removethinkingtags_drops_edit_create_tool_calls_in_unclosed_thinking_tags_parsexmltoolcallwiththinki_':
    UNCLOSED_REASONING,
  'C-direct_content_attempt_completion_parsing_should_handle_xml_like_content_without_confusion':
    ENTITIES_DECODED,
  'C-direct_content_attempt_completion_parsing_should_handle_empty_content': EMPTY_COMPLETION,
  'C-direct_content_vs_legacy_result_tag_should_not_parse_result_tags_anymore': RESULT_CHILD,
  'C-simplified_attempt_completion_xml_parsing_should_handle_result_with_xml_like_content':
    ENTITIES_DECODED,
  'C-simplified_attempt_completion_xml_parsing_should_treat_all_content_as_direct_content_including_old_style_tags':
    RESULT_CHILD,
  'C-simplified_attempt_completion_xml_parsing_should_handle_empty_content': EMPTY_COMPLETION,
};
// ── cogency-execute-protocol.json (Cogency, seed 001), parser cases ───────────────────────────

const RESULTS_ARE_NOT_PARSED =
  '<results> is written by the orchestrator, never by the model: in model output it is text (the agent loop stops generation there), not a parsed event';
const MISSING_ARGS_IS_EMPTY =
  'an element without "args" is a call with empty arguments; the tool schema decides whether that is valid, and validation tells the model what is missing';
const SINGLE_OBJECT_ACCEPTED =
  'one call object without the surrounding array is read as a batch of one: the intent is unambiguous and rejecting it only costs a turn';
const NO_HARD_STOP =
  "text after </execute> is kept as text (nothing lost); ending the turn after a batch is the agent loop's decision (issue 4), not the parser's";

const BAD_ELEMENT_ALONE =
  'a batch keeps its valid calls and reports only the element that is not a call (with its raw text); Cogency rejected the whole batch';

export const COGENCY_DEVIATIONS: Readonly<Record<string, string>> = {
  'A-head-parser-execute_array_with_non_object': BAD_ELEMENT_ALONE,
  'A-v3.2-parser-execute_array_with_non_object': BAD_ELEMENT_ALONE,
  'A-head-parser-execute_missing_args_field': MISSING_ARGS_IS_EMPTY,
  'A-v3.2-parser-execute_missing_args_field': MISSING_ARGS_IS_EMPTY,
  'A-head-parser-execute_not_json_array': SINGLE_OBJECT_ACCEPTED,
  'A-head-parser-parser_terminates_after_execute': NO_HARD_STOP,
  'A-head-parser-results_block': RESULTS_ARE_NOT_PARSED,
  'A-head-parser-results_order_matches_execution': RESULTS_ARE_NOT_PARSED,
  'A-head-parser-whitespace_only_content': RESULTS_ARE_NOT_PARSED,
  'A-v3.2-parser-full_sequence_think_execute_results': RESULTS_ARE_NOT_PARSED,
  'A-v3.2-parser-mixed_tags_streaming_tokens': RESULTS_ARE_NOT_PARSED,
  'A-v3.2-parser-protocol_example_complete_sequence': RESULTS_ARE_NOT_PARSED,
  'A-v3.2-parser-results_block': RESULTS_ARE_NOT_PARSED,
  'A-v3.2-parser-results_order_matches_execution': RESULTS_ARE_NOT_PARSED,
};
// ── model-native-formats.jsonl, hermes rows (vLLM, llama.cpp, Ollama) ─────────────────────────

export const MODEL_NATIVE_DEVIATIONS: Readonly<Record<string, string>> = {
  'line-13':
    'mid-stream, a call in an alternative wrapper (<function_call>) is announced once its arguments begin, since the wrapper alone may be prose; llama.cpp announces it at the name',
  'line-36':
    "llama.cpp strips the ```json fence from the content because the request asked for a JSON response format; toolwire keeps the model's text as written",
  'line-151':
    'Ollama stops looking for calls after a JSON object that is not one; toolwire reads each object on its own, so the call after it runs',
  'line-155':
    'a stray "]" after a batch of calls is kept as text (nothing is dropped unreported); Ollama swallows it',
  'line-184':
    "Probe's XML protocol trims a value's surrounding white space; Roo Code keeps the indentation before </content>",
  'line-188':
    "Probe's XML protocol decodes entities in every value; Cline leaves them encoded in file content",
  'line-94':
    "the prompt opened the reasoning block and the model never closed it: toolwire keeps its text as reasoning and emits the complete call after it; llama.cpp's fallback turns the text into content",
  'line-250':
    'two pre-v11 [TOOL_CALLS] blocks in one output: vLLM raises an error, toolwire reads both calls',
  'line-258':
    'the arguments are cut off inside a string: vLLM heals and runs the call, toolwire never runs a cut-off call and reports it (incomplete-call) with its raw text',
  'line-292':
    'vLLM drops the prose between two calls from the content; toolwire keeps every character',
  'line-294':
    'every value is closed and only </tool_call> is missing at the end of the output: toolwire completes the call (only its closing markup is missing), vLLM leaves it as text',
  'line-304':
    'the call names no tool (a bare counter id `0`): vLLM guesses the tool from the declared ones, toolwire does not guess a tool and leaves the block as text',
  'line-327':
    'a tool name alone on the first line with the command as the rest is an opt-in heuristic of one server (vmlx); toolwire does not read it as a call',
};

/**
 * Rows `auto` reads differently from the row's own format (ids as above); `null` takes back a
 * deviation of the named format that `auto` does not have.
 */
export const MODEL_NATIVE_AUTO_DEVIATIONS: Readonly<Record<string, string | null>> = {
  // MiniMax-M3's opener begins with `]` (`]<]minimax[>[`): auto holds a `]` that ends a chunk
  // until the next one, so a stream cut right after it shows it only when the stream goes on.
  'line-155': null,
  'line-156':
    "the stream is cut right after a `]`, which auto holds back: MiniMax-M3's opener `]<]minimax[>[` begins with it (it shows once the stream goes on or ends)",
  'line-328':
    "issue 23 asks for the `[TOOL_CALL] {tool => …}` arrow form (MiniMax M2.5/M2.7 agents' fallback), which auto reads; the row predates it",
};

// ── cogency-execute-protocol.json, conversation cases (agent conversation rendering) ──────────

export const COGENCY_CONVERSATION_DEVIATIONS: Readonly<Record<string, string>> = {
  'A-head-conversation-flow_two_batches':
    "result payload is not the seed's array of {tool, status, content}; toolwire keeps results structured",
  'A-head-conversation-inject_result':
    "result payload is not the seed's array of {tool, status, content}; toolwire keeps results structured",
  'A-head-conversation-reconstruct_single':
    "result payload is not the seed's array of {tool, status, content}; toolwire keeps results structured",
  'A-head-conversation-result_no_calls':
    'reference puts the results message before the earlier assistant text (its buffer flushes late); toolwire keeps the order things happened',
  'A-v3.2-conversation-call_order_preserved_in_reconstruction':
    'v3.2 sends results without the <results> wrapper the seed specifies',
  'A-v3.2-conversation-collision_closing_tag_in_args':
    'v3.2 sends results without the <results> wrapper the seed specifies',
  'A-v3.2-conversation-collision_html_content_preserved':
    'v3.2 sends results without the <results> wrapper the seed specifies',
  'A-v3.2-conversation-complex_flow_two_batches':
    "result payload is not the seed's array of {tool, status, content}; toolwire keeps results structured",
  'A-v3.2-conversation-multiple_batches_separate_execute_blocks':
    'v3.2 sends results without the <results> wrapper the seed specifies',
  'A-v3.2-conversation-multiple_calls_reconstruct_batched':
    'v3.2 sends results without the <results> wrapper the seed specifies',
  'A-v3.2-conversation-no_calls_before_result':
    'reference puts the results message before the earlier assistant text (its buffer flushes late); toolwire keeps the order things happened',
  'A-v3.2-conversation-result_formatting_injected':
    "result payload is not the seed's array of {tool, status, content}; toolwire keeps results structured",
  'A-v3.2-conversation-roundtrip_multiple_tools':
    'v3.2 sends results without the <results> wrapper the seed specifies',
  'A-v3.2-conversation-roundtrip_single_tool':
    'v3.2 sends results without the <results> wrapper the seed specifies',
  'A-v3.2-conversation-single_call_reconstruct_to_json_array':
    "result payload is not the seed's array of {tool, status, content}; toolwire keeps results structured",
};

// ── content-block-stream-parser.json (anthropic-agent front end, seed 002) ────────────────────

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
