package telemetry

import "go.opentelemetry.io/otel/attribute"

// The attribute keys of the OpenTelemetry GenAI semantic conventions that
// prose writes, in one place: the Go semconv packages no longer carry
// them. Names and meanings follow the conventions' registry (gen_ai.*,
// error.type); the prose.* keys are this project's own.
const (
	// GenAI operation and model.
	OperationName         = attribute.Key("gen_ai.operation.name")
	ProviderName          = attribute.Key("gen_ai.provider.name")
	RequestModel          = attribute.Key("gen_ai.request.model")
	ResponseModel         = attribute.Key("gen_ai.response.model")
	UsageInputTokens      = attribute.Key("gen_ai.usage.input_tokens")
	UsageOutputTokens     = attribute.Key("gen_ai.usage.output_tokens")
	ResponseFinishReasons = attribute.Key("gen_ai.response.finish_reasons")
	ResponseID            = attribute.Key("gen_ai.response.id")
	RequestTemperature    = attribute.Key("gen_ai.request.temperature")
	RequestMaxTokens      = attribute.Key("gen_ai.request.max_tokens")
	// Message content, written only when Options.Content is set: JSON
	// text in the conventions' message shapes.
	SystemInstructions = attribute.Key("gen_ai.system_instructions")
	InputMessages      = attribute.Key("gen_ai.input.messages")
	OutputMessages     = attribute.Key("gen_ai.output.messages")
	// A tool call (execute_tool): the function's name, the model's id of
	// the call, its type; its arguments and result only with
	// Options.Content.
	ToolName          = attribute.Key("gen_ai.tool.name")
	ToolCallID        = attribute.Key("gen_ai.tool.call.id")
	ToolType          = attribute.Key("gen_ai.tool.type")
	ToolCallArguments = attribute.Key("gen_ai.tool.call.arguments")
	ToolCallResult    = attribute.Key("gen_ai.tool.call.result")
	// OutputType is gen_ai.output.type: "json" where a JSON reply was
	// asked for (a condition's verdict, a render's schema), else "text".
	OutputType = attribute.Key("gen_ai.output.type")
	// ServerAddress and ServerPort name the model server (from its base
	// URL).
	ServerAddress = attribute.Key("server.address")
	ServerPort    = attribute.Key("server.port")
	// ErrorType is the conventions' general error.type: for prose, the
	// name of a run.Code ("failed", "usage", ...), timeout, canceled, or
	// _OTHER.
	ErrorType = attribute.Key("error.type")

	// prose's own: the run, and each call of a slot.
	RunID        = attribute.Key("prose.run.id")
	RunMode      = attribute.Key("prose.run.mode") // live, resuming, replaying
	SpecName     = attribute.Key("prose.spec.name")
	SpecPath     = attribute.Key("prose.spec.path")
	CallPath     = attribute.Key("prose.call.path") // the call's stable id, e.g. L58/3
	CallSlot     = attribute.Key("prose.call.slot")
	CallAttempt  = attribute.Key("prose.call.attempt")
	CallOutcome  = attribute.Key("prose.call.outcome")   // ok, error, timeout, canceled, waiting, suspended
	CallPos      = attribute.Key("prose.call.pos")       // FILE:LINE:COL of the call
	CallJournal  = attribute.Key("prose.call.journaled") // answered from the journal, not run
	RunWaiting   = attribute.Key("prose.run.waiting")    // the run suspended at a gate
	GateKind     = attribute.Key("prose.gate.kind")      // of the gate waited at
	Condition    = attribute.Key("prose.judgment.condition")
	JudgmentPath = attribute.Key("prose.judgment.path")
)

// EventGateWaiting is the span event of a run, and of a gate's call,
// that waits for an answer: not an error.
const EventGateWaiting = "prose.gate.waiting"

// OutputJSON is the gen_ai.output.type of a request for JSON.
const OutputJSON = "json"

// Values of gen_ai.operation.name.
const (
	OpChat           = "chat"
	OpInvokeWorkflow = "invoke_workflow"
	OpExecuteTool    = "execute_tool"
)

// Provider is the gen_ai.provider.name of every model request: prose
// speaks the OpenAI Chat Completions API to whatever server OPENAI_BASE_URL
// names, so "openai" names the API, not necessarily the company serving it.
const Provider = "openai"
