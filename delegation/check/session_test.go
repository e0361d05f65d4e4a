package check_test

import (
	"testing"
)

// A session is checked as a call whose target is its model: the names
// in its prompt and context are checked, its hidden target never is; its
// agent must be defined, once, with no property prose cannot honour.
func TestCheckSessions(t *testing.T) {
	cases := []checkCase{
		{name: "session reads its names", inputs: "topic", outputs: "out",
			code: "agent researcher:\n  prompt: \"Be thorough.\"\nlet f = session: researcher\n  prompt: \"Research {topic}\"\n  context: [topic]\nreturn {out: f}"},
		{name: "unknown name in the prompt", inputs: "topic", outputs: "out",
			code: "let f = session \"Research {topc}\"\n  context: topic\nreturn {out: f}",
			want: []string{"1:27 error check/undefined-name undefined name 'topc'; did you mean 'topic'?"}},
		{name: "unknown name in the context", inputs: "topic", outputs: "out",
			code: "let f = session \"Research\"\n  context: [topic, findings]\nreturn {out: f}",
			want: []string{"2:20 error check/undefined-name undefined name 'findings'"}},
		{name: "undefined agent, nearest name", inputs: "topic", outputs: "out",
			code: "agent researcher:\n  prompt: \"p\"\nlet f = session: reseacher\n  prompt: \"Research {topic}\"\nreturn {out: f}",
			want: []string{"3:18 error check/session no agent is named 'reseacher'; did you mean 'researcher'?"}},
		{name: "undefined agent", outputs: "out",
			code: "let f = session review: critic\n  prompt: \"Review\"\nreturn {out: f}",
			want: []string{"1:25 error check/session no agent is named 'critic': define it at the top level"}},
		{name: "agent defined after its session", outputs: "out",
			code: "let f = session: critic\n  prompt: \"Review\"\nreturn {out: f}\nagent critic:\n  prompt: \"Be strict.\""},
		{name: "duplicate agent", outputs: "out",
			code: "agent critic:\n  prompt: \"a\"\nagent critic:\n  prompt: \"b\"\nlet f = session: critic\n  prompt: \"Review\"\nreturn {out: f}",
			want: []string{"3:7 error check/session agent 'critic' is defined twice"}},
		{name: "agent named as a block", outputs: "out",
			code: "agent review:\n  prompt: \"a\"\nblock review(x):\n  return x\nlet r = do review(1)\nreturn {out: r}",
			want: []string{"1:7 error check/session agent 'review' is named as a block is"}},
		{name: "session inside a block", inputs: "topic", outputs: "out",
			code: "agent critic:\n  prompt: \"a\"\nblock ask(x):\n  return session: critc\n    prompt: \"Review {x} on {topic}\"\nlet r = do ask(1)\nreturn {out: r}",
			want: []string{"4:19 error check/session no agent is named 'critc'; did you mean 'critic'?"}},
		{name: "persist", outputs: "out",
			code: "agent critic:\n  persist: project\n  prompt: \"a\"\nagent other:\n  persist: false\n  prompt: \"b\"\nreturn {out: 1}",
			want: []string{"2:12 error check/session agent critic: prose keeps no agent memory across sessions or runs yet, so persist: cannot be honoured"}},
		{name: "skills", outputs: "out",
			code: "agent critic:\n  skills: [\"web-search\"]\n  prompt: \"a\"\nagent other:\n  skills: []\n  prompt: \"b\"\nreturn {out: 1}",
			want: []string{"2:11 error check/session agent critic: prose does not give an agent's sessions skills yet"}},
		{name: "retry counted", outputs: "out",
			code: "let f = session \"x\"\n  retry: -1\nreturn {out: f}",
			want: []string{"2:10 error check/retries"}},
		{name: "member of a session's text", outputs: "out",
			code: "let f = session \"x\"\nreturn {out: f.summary}",
			want: []string{"2:16 error lint/unknown-member"}},
	}
	runCheckCases(t, cases)
}
