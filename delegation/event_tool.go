package delegation

// EventToolCall is a tool call a service's model session made and ran
// live (not answered from a journal): Path is the call's, Slot the tool's
// function name, Args its {"tool", "arguments", "call_id"}, Result or Err
// what it gave, Time its end and Duration how long it ran.
const EventToolCall EventKind = "tool.call"
