// Package llm talks to language models through any OpenAI-compatible
// Chat Completions server (OpenAI, Ollama, vLLM, llama.cpp's server,
// OpenRouter), using github.com/sashabaranov/go-openai.
//
// Main types and entry points:
//
//   - Config, ConfigFromEnv: OPENAI_API_KEY, OPENAI_BASE_URL, PROSE_MODEL,
//     PROSE_MODEL_TIMEOUT; flags (--model, --base-url) override fields.
//   - Client (NewClient, Chat): one chat request with transport-level
//     retries (408, 409, 429, 5xx, connection errors, timed-out attempts,
//     malformed replies) with exponential backoff and jitter, honouring
//     Retry-After and retry-after-ms; a per-attempt timeout; no retry on
//     400/401/403/404, whose *Error says what to fix. A zero temperature is
//     really sent (go-openai omits it; the transport writes it back into the
//     body). A server that rejects response_format gets the JSON Schema as
//     instructions instead; one that rejects temperature gets none. The API
//     key is removed from every error message.
//   - ModelJudge (NewModelJudge): the delegation.Judge for conditions that
//     the deterministic rules of package delegation/judge leave open; use
//     it as judge.Deterministic's Next. Structured output
//     {"reasoning", "holds"} at temperature 0, a tolerant parse, a per-run
//     single-flight cache by (model, condition, values digest), and
//     fail-closed answers for guard conditions.
//   - SlotService (NewSlotService, SlotInfo): a model acting in a slot;
//     the system prompt comes from the spec, the user message is the
//     call's arguments led by its `prompt`; JSON replies are parsed.
//   - Usage, Meter: model calls, retries, tokens in/out, judgments asked,
//     cached and avoided, counted concurrently for a run.
//
// Package llm/llmtest provides a scripted in-process server for tests.
package llm
