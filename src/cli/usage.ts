/**
 * Every command's usage text, apart from the commands themselves: `toolwire --help`, a command's
 * `--help` and usage errors need the text, not the command's module and the optional packages it
 * imports (a parser-only install has no Hono, ast-grep or model client). Nothing here may import
 * a command module or anything outside `dependencies`.
 */
import { DEFAULT_BASE_URL, DEFAULT_MODEL, MODEL_ENVIRONMENT } from './model-settings.ts';

/** What `TOOLWIRE_LEASE_MS` (serve, advanced) takes, in whole milliseconds. */
export const LEASE_MS_RANGE = { min: 100, max: 3_600_000 } as const;

/** What `serve` and `proxy` say of `--store` (store-flag.ts reads it). */
const STORE_HELP = `--store memory (default) keeps runs in this process; --store redis://HOST:PORT[/DB] keeps them
in Redis, shared by every instance started with the same store and --store-prefix (default tw:,
put before every key). A user and password may precede HOST (redis://:PASSWORD@HOST:PORT); they
are never printed. Environment: TOOLWIRE_STORE, TOOLWIRE_STORE_PREFIX.`;

export const PARSE_USAGE = `  toolwire parse --protocol <name|auto|model> --tools <tools.json> [--model ID] [--chunk-size N] < output.txt
  toolwire parse --chat-template <file> --tools <tools.json> [--chunk-size N] < output.txt
  toolwire parse --list

Reads a model's raw output on standard input and prints one JSON object per line: the parse
events (text-delta, reasoning-delta, tool-input-start/delta/end, tool-call, error).
The tools file is a JSON array of {"name", "description"?, "inputSchema"} (or of OpenAI's
{"type": "function", "function": {...}}, or a request holding "tools").
--protocol model reads the format of the --model ID (--model alone implies it), e.g.
--protocol model --model qwen3-coder:30b. --list prints every format with its families.
--chat-template reads the format the model's chat template teaches (its .jinja file or its
tokenizer_config.json); --format-file and --response-template also replace --protocol.`;

export const AGENT_USAGE = `  toolwire agent "<question>" --root <dir> [--protocol xml|NAME|auto|model | --chat-template FILE
                 | --format-file FILE | --response-template FILE] [--base-url URL] [--model NAME] [--max-steps N]

Runs the code assistant (search, extract, query, list_files over --root) against an
OpenAI-compatible server: default ${DEFAULT_BASE_URL} (Ollama), model ${DEFAULT_MODEL}.
When standard input is a terminal the agent may also ask you a question (ask_user): type the
answer and press Enter. Ctrl-C stops the run (exit status 130).
${MODEL_ENVIRONMENT}`;

/**
 * The server's default pause between replayed messages, as `serve --help` states it. The server
 * (`DEFAULT_REPLAY_DELAY_MS` in src/server/app.ts) cannot be imported here without Hono; a test
 * keeps the two equal.
 */
export const STATED_REPLAY_DELAY_MS = 25;

export const SERVE_USAGE = `  toolwire serve [--port 8787] [--host 127.0.0.1] [--allow-host NAME]... [--root <dir>]
                [--protocol xml|NAME|auto|model | --chat-template FILE | --format-file FILE
                 | --response-template FILE] [--base-url URL] [--model NAME] [--max-runs N]
                [--replay <file.sse> [--replay-delay MS]] [--web-dir <dir>]
                [--store memory|redis://HOST:PORT[/DB]] [--store-prefix PREFIX]

Serves the page and the API (POST /api/runs streams a run as content blocks). The agent uses
the code tools over --root (default: the current folder) and ask_user, which the page answers.
Model: an OpenAI-compatible server, default ${DEFAULT_BASE_URL} (Ollama), model ${DEFAULT_MODEL}.
--replay plays a recorded stream (e.g. examples/recorded-run.sse) for every question, no model;
--replay-delay waits MS milliseconds between its messages (default ${STATED_REPLAY_DELAY_MS}; 0: as fast as possible).
Requests must be addressed to a loopback name (or, on a non-loopback --host, to an IP address or
that host's name); --allow-host admits another name, e.g. behind a reverse proxy.
${STORE_HELP}
With Redis, any instance answers a paused run's tools, stops a run and serves its events; a run
whose instance died ends with an instance_lost error within the lease (10 s) and a 5 s sweep.
Advanced: TOOLWIRE_LEASE_MS sets that lease (ms, ${LEASE_MS_RANGE.min} to ${LEASE_MS_RANGE.max}).
${MODEL_ENVIRONMENT}`;

export const PROXY_USAGE = `  toolwire proxy --upstream <URL> [--port 8788] [--host 127.0.0.1] [--allow-host NAME]...
                [--protocol model|NAME|auto | --chat-template FILE|auto | --format-file FILE
                 | --response-template FILE] [--api-key-env VAR] [--upstream-api-key-env VAR]
                [--max-requests N] [--max-body-mb N] [--upstream-timeout SECONDS]
                [--tool-choice-retries N] [--body-timeout SECONDS] [--memory-budget-mb N]
                [--max-upstream-reply-mb N] [--max-upstream-event-kb N]
                [--max-stored-responses N] [--max-stored-response-mb N]
                [--constrain off|demanded|always]
                [--upstream-kind auto|llama.cpp|vllm|sglang|ollama|lmstudio|openai]
                [--store memory|redis://HOST:PORT[/DB]] [--store-prefix PREFIX]

Serves POST /v1/chat/completions and POST /v1/responses (OpenAI), POST /v1/messages
(Anthropic), POST /api/chat (Ollama), GET /v1/models, GET /api/tags and POST /api/show with
tools, in front of an OpenAI-compatible model server that has none (--upstream, e.g.
http://127.0.0.1:11434/v1 for Ollama; Ollama's /api/tags and /api/show go to the server's root,
or are answered from /v1/models). The model is told the tools in its own format (--protocol
model, the default, chooses it from each request's model name) and its calls come back as the
client's API writes them. --chat-template auto asks the model server for its chat template once, at
start (llama.cpp's GET /props), and reads its format; without one, each request's model's format.
--port 0 picks a free port; the first line printed is the base URL.
--api-key-env VAR: clients must send the key in VAR; the client's Authorization goes upstream
unless --upstream-api-key-env VAR names the key to send there. A demanded tool_choice is asked
again --tool-choice-retries times (default 1) when the model answers without a call.
--constrain makes the model server follow the format's grammar (docs/proxy.md, "Constrained
decoding"): demanded (default) when tool_choice is required or names a tool or a tool is strict,
always also under auto, off never. The grammar goes as the server takes it (--upstream-kind:
llama.cpp grammar, vLLM and SGLang structural tags, Ollama and LM Studio a JSON Schema; openai
none); auto (default) asks the server what it is once, at the first request that needs it. A
server that refuses it (400) is asked again without it and not sent it again.
Limits (docs/proxy.md): a body must arrive within --body-timeout (default 30 s); requests share
--memory-budget-mb (default 1024, at most half the heap); a model server's whole reply is read up
to --max-upstream-reply-mb (default 8) and a streamed event held waiting for its end up to
--max-upstream-event-kb (default 1024), then the upstream connection is closed and the client told. Responses are kept
for previous_response_id up to --max-stored-responses (default 1000; 0 keeps none) and
--max-stored-response-mb (default 64), the oldest forgotten first; with a Redis --store, any
instance continues a response another stored.
${STORE_HELP}`;

export const GRAMMAR_USAGE = `  toolwire grammar --tools <tools.json> --syntax gbnf|ebnf|structural-tag|json-schema
                   [--protocol NAME | --format-file FILE | --chat-template FILE | --response-template FILE]
                   [--model ID] [--tool-choice auto|required|none|NAME] [--no-parallel] [--json]

Prints the grammar that lets a model write only what the format's parser reads as calls to the
tools (their JSON Schemas held), made from the format's spec:
  gbnf            llama.cpp's "grammar": the whole reply when --tool-choice demands a call
                  (required or a tool's NAME); under auto a lazy grammar of the calls, started
                  by the trigger word printed on standard error (grammar_lazy, grammar_triggers)
  ebnf            xgrammar's grammar (vLLM structured_outputs.grammar, SGLang ebnf): the whole
                  reply, also under auto (text, then calls)
  structural-tag  xgrammar's structural tag (vLLM and SGLang response_format), as JSON
  json-schema     the whole reply as a JSON Schema (Ollama format, LM Studio response_format),
                  for formats whose calls are JSON, when a call is demanded
--tool-choice defaults to auto; --no-parallel allows one call at most. --json prints the whole
result as JSON (the grammar, and for gbnf whether it is lazy and its trigger words).`;
