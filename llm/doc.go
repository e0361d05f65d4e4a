// Package llm talks to language models through any OpenAI-compatible
// Chat Completions server (OpenAI, Ollama, vLLM, llama.cpp's server,
// OpenRouter), using github.com/sashabaranov/go-openai.
//
// Main types and entry points:
//
//   - Config, ConfigFromEnv: OPENAI_API_KEY, OPENAI_BASE_URL, PROSE_MODEL,
//     PROSE_MODEL_TIMEOUT (one deadline for a whole call, retries
//     included), PROSE_MAX_TOKENS and PROSE_JUDGE_MAX_TOKENS (the output
//     cap of slot answers and of verdicts, sent as max_tokens or
//     max_completion_tokens), PROSE_MAX_VALUE_BYTES (how much of each
//     argument a slot's prompt carries); flags (--model, --base-url)
//     override fields. CheckKey refuses OpenAI's own API without a key,
//     so a runner can refuse the run before it starts.
//     As for the official SDKs, the base URL includes the API version
//     path (https://api.openai.com/v1, http://localhost:11434/v1,
//     https://openrouter.ai/api/v1): /chat/completions is appended and
//     nothing else; a trailing slash does not matter; a 404 from a base
//     URL without a version path says to add /v1. Config.Secrets lists
//     what no output may show: the key, and credentials written in the
//     base URL (user, password, key-like query values), also
//     percent-encoded.
//   - Client (NewClient, Chat): one chat request with transport-level
//     retries (408, 409, 429, 5xx, connection errors other than a refused
//     connection, malformed replies) with exponential backoff and jitter, honouring
//     Retry-After and retry-after-ms; one deadline per call; no retry on
//     400/401/403/404, whose *Error says what to fix. A zero temperature is
//     really sent (go-openai omits it; the transport writes it back into the
//     body). A server that rejects response_format gets the JSON Schema as
//     instructions instead; one that rejects temperature gets none. The
//     default transport takes a proxy from HTTPS_PROXY/HTTP_PROXY/NO_PROXY.
//     Server dialects: a missing or null usage counts zero tokens; unknown
//     fields are ignored; a 200 reply that is an error object (OpenRouter)
//     is treated as the status its code names; a 200 whose choice failed
//     mid-way (finish_reason "error", or a choice-level error) is retried
//     like a 502 and explained; an error reply's own message is read
//     whatever its shape ({"error": "text"}, {"error": {"message"}},
//     {"message"}, {"detail"}, plain text); a refusal or a content
//     filter is a non-retryable *Error saying so; a reasoning model's
//     <think> block is split off (ChatReply.Thinking); finish_reason
//     "length" sets ChatReply.Truncated; a body over 32 MiB ends the call.
//     Secrets are removed from every error message, Go's *url.Error
//     included.
//   - ModelJudge (NewModelJudge): the delegation.Judge for conditions that
//     the deterministic rules of package delegation/judge leave open; use
//     it as judge.Deterministic's Next. Structured output
//     {"reasoning", "holds"} at temperature 0, a tolerant parse, a per-run
//     single-flight cache by (model, condition, values digest), and
//     fail-closed answers for guard conditions.
//   - SlotService (NewSlotService, SlotInfo): a model acting in a slot;
//     the system prompt comes from the spec, the user message is the
//     call's arguments led by its `prompt`; JSON replies are parsed (also
//     in a fence, after a short lead-in, after a <think> block: ParseReply,
//     reply.go). A reply cut at the token limit, over MaxSlotReplyBytes,
//     empty, attempting JSON that is not one value (two values, cut off:
//     a *ReplyError), or (where the slot may fail) {"error": "..."} is an
//     error, so retries apply.
//   - Usage, Meter: model calls, retries, tokens in/out, judgments asked,
//     cached and avoided, counted concurrently for a run.
//
// Package llm/llmtest provides a scripted in-process server for tests.
package llm
