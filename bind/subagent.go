package bind

// Subagent asks Env.Subagent for the model service of the sessions a
// ProseScript program spawns (`session "PROMPT"`, `session: AGENT`):
// the one-off sessions of the program, or those of one agent with one
// model.
type Subagent struct {
	// Name is how the sessions print (`session: researcher`).
	Name string
	// Agent is the agent's name ("" for one-off sessions), Prompt its
	// system prompt, Shape its shape as lines (`self: research`).
	Agent  string
	Prompt string
	Shape  []string
	// Model is the model the session or its agent names ("" for the
	// configured one).
	Model string
}
