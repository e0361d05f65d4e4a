package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The mistakes table: plausible mistakes in a spec, a binding, a service or
// an answer, each with the smallest spec that shows it, the command a
// person would type, and where prose catches it: lint, before the run
// (exit 2, nothing called), or at run time with an error naming the
// cause (exit 1; a refused gate answer exits 2). None may be silent: an
// exit 0 with a wrong value fails the table whatever the row expects.

// Where a mistake is caught.
type caught int

const (
	byLint     caught = iota // prose lint exits 1, the finding on stdout
	beforeIt                 // prose run exits 2 before any call
	atRun                    // the run fails (exit 1) naming the cause
	refused                  // an answer refused where it arrives (exit 2)
	rightValue               // not a mistake any more: the right value, exit 0
)

func (c caught) String() string {
	return [...]string{"lint", "before the run", "at run time", "answer refused", "the right value"}[c]
}

func (c caught) code() int {
	return [...]int{1, 2, 1, 2, 0}[c]
}

// mistake is one row: files written in a fresh folder (the folder is the
// working directory), commands run in order (all but the last set the
// stage: a run among them must not end with exit 0), and where the last
// one's mistake is caught, with the texts its message must hold (want,
// one a line).
type mistake struct {
	name  string
	files map[string]string
	cmds  [][]string
	by    caught
	want  string
	// skip, when set, names what the row waits for (a check another part
	// of the project adds): the row is skipped until it is removed, or
	// when MISTAKES_ALL is set in the environment (to see which of them
	// pass already).
	skip string
}

// Spec builders: the smallest files the rows need.

func pattern(slots, inputs, delegation string) string {
	s := "---\nname: p\nkind: pattern\n---\n\n# P\n\nA pattern of the mistakes table.\n\n### Slots\n\n" + slots + "\n"
	if cfg, ok := strings.CutPrefix(inputs, "config:"); ok {
		s += "### Config\n\n" + cfg + "\n"
	} else if inputs != "" {
		s += "### Requires\n\n- Pattern instance receives:\n" + inputs + "\n"
	}
	return s + "### Delegation\n\n```prose\n" + delegation + "\n```\n"
}

func function(params, returns, execution string) string {
	s := "---\nname: f\nkind: function\n---\n\n# F\n\nA function of the mistakes table.\n\n"
	if params != "" {
		s += "### Parameters\n\n" + params + "\n"
	}
	s += "### Returns\n\n" + returns + "\n"
	if execution != "" {
		s += "### Execution\n\n```prose\n" + execution + "\n```\n"
	}
	return s
}

const (
	reviewSlot   = "- `reviewer`\n  - ensures: a verdict `{accepted: boolean, notes: string}`\n"
	reviewCall   = "let review = call reviewer\n  draft: \"d\"\n"
	reviewReturn = "if review.accepted:\n  return \"shipped\"\nreturn \"held\""
	shipGate     = "let verdict = gate { question: \"Ship?\", options: [\"go\", \"stop\"] }\nif verdict.choice == \"go\":\n  return \"shipped\"\nreturn \"stopped\""
	topicInput   = "    topic: string     -- what to write about\n"
	roundsInput  = "config:- `max_rounds` (integer, default: 3): how many rounds\n"
	oneSlot      = "- `svc`\n"
	countReturns = "- `count` (integer): how many\n"
	twoReturns   = "- `title` (string): a title\n- `body` (string): a body\n"
	topicParam   = "- `topic` (string): what to write about\n"
	servicesNode = "---\nname: services\nkind: responsibility\n---\n\n# Services\n\nThe services that are down.\n\n### Maintains\n\n" +
		"- `broken`: the list of services that are down\n\n### Continuity\n\n- input-driven\n"
	statusExecution = "\n### Execution\n\n```prose\nif broken.length == 0:\n  return { summary: \"All systems operational.\" }\nreturn { summary: \"down\" }\n```\n"
	statusNode      = "---\nname: status\nkind: responsibility\n---\n\n# Status\n\nWhether every service is up.\n\n### Requires\n\n" +
		"- `broken`: the list of services that are down\n\n### Maintains\n\n- `summary`: one line on the state of the services\n\n### Continuity\n\n- input-driven\n"
)

func runP(args ...string) []string { return append([]string{"run", "p.prose.md"}, args...) }
func runF(args ...string) []string { return append([]string{"run", "f.prose.md"}, args...) }
func p(src string) map[string]string {
	return map[string]string{"p.prose.md": src}
}
func f(src string) map[string]string {
	return map[string]string{"f.prose.md": src}
}

// gateRows are the mistakes of answering a gate: the run stops at the
// gate (exit 3), then the answer.
func gateRows() []mistake {
	run := []string{"run", "p.prose.md", "--slot", "svc=exec:echo"}
	gateSpec := p(pattern(oneSlot, "", shipGate))
	fields := p(pattern(oneSlot, "", "let r = gate { question: \"Review\", fields: { approved: \"boolean\", notes: \"string\" } }\nif r.approved:\n  return \"approved\"\nreturn \"not approved\""))
	asked := p(pattern(oneSlot, "", "let who = ask_user \"Who ships?\"\nreturn who"))
	return []mistake{
		{name: "gate answer outside the options (--value)", files: gateSpec, by: refused, want: `"aprove" is not one of the options ["go", "stop"]`,
			cmds: [][]string{run, {"answer", "latest", "--value", "aprove"}}},
		{name: "gate answer outside the options (--json)", files: gateSpec, by: refused, want: `choice "aprove" is not one of the options ["go", "stop"]`,
			cmds: [][]string{run, {"answer", "latest", "--json", `{"choice":"aprove"}`}}},
		{name: "gate answer with a key the gate does not ask for", files: gateSpec, by: refused, want: `the key "why", which the gate does not ask for`,
			cmds: [][]string{run, {"answer", "latest", "--json", `{"choice":"go","why":"ok"}`}}},
		{name: "gate answer that is a number", files: gateSpec, by: refused, want: `the answer is integer; the gate takes {"choice": one of ["go", "stop"]}`,
			cmds: [][]string{run, {"answer", "latest", "--json", `1`}}},
		{name: "gate answered twice", files: gateSpec, by: refused, want: "was already answered",
			cmds: [][]string{run, {"answer", "latest", "--value", "go"}, {"answer", "latest", "--value", "stop"}}},
		{name: "gate field of the wrong type", files: fields, by: refused, want: `field "approved" is "yes", not boolean`,
			cmds: [][]string{run, {"answer", "latest", "--json", `{"approved":"yes","notes":""}`}}},
		{name: "gate field missing", files: fields, by: refused, want: `the answer has no field "notes"`,
			cmds: [][]string{run, {"answer", "latest", "--json", `{"approved":true}`}}},
		{name: "ask_user answered with an object", files: asked, by: refused, want: "ask_user asks for a string",
			cmds: [][]string{run, {"answer", "latest", "--json", `{"who":"me"}`}}},
	}
}

// boundaryRows are the mistakes of services and returns: a value of the
// wrong shape where it enters the run.
func boundaryRows() []mistake {
	review := p(pattern(reviewSlot, "", reviewCall+reviewReturn))
	retried := p(pattern(reviewSlot, "", reviewCall+"  retries 2\n"+reviewReturn))
	reviewer := func(cmd string) [][]string { return [][]string{runP("--slot", "reviewer=exec:"+cmd)} }
	callee := "- `topic` (string): what\n"
	caller := function("", "- `out`: the count\n", "let r = call counter\n  topic: \"x\"\nreturn r.count") +
		"\n## counter\n\n### Parameters\n\n" + callee + "\n### Returns\n\n- `count` (integer): how many\n- `title` (string): a title\n"
	oneOut := function("", "- `result`: what was found\n", "let r = call finder\nreturn r") +
		"\n## finder\n\n### Returns\n\n- `found`: what was found\n"
	words := function("- `mode` (\"fast\" | \"slow\", optional): how hard to look\n", "- `result` (\"low\" | \"high\"): the level\n", "let g = call grader\nreturn g") +
		"\n## grader\n\n### Returns\n\n- `level` (\"low\" | \"high\"): the level\n"
	return []mistake{
		{name: "reviewer prints a log line before its JSON", files: review, by: atRun, want: `the output of reviewer is text followed by JSON ("reviewing...", then the JSON from line 2)`,
			cmds: reviewer(`echo reviewing...; echo '{"accepted": true, "notes": "ok"}'`)},
		{name: "one-output callee prints a log line before its JSON", files: f(oneOut), by: atRun, want: `the output of finder is text followed by JSON ("searching...", then the JSON from line 2)`,
			cmds: [][]string{runF("--slot", `finder=exec:echo searching...; echo '{"found": "x"}'`)}},
		{name: "one-output callee answers an error object", files: f(oneOut), by: atRun, want: `finder answered the error "not found", not its outputs, and it declares no ### Errors: declare it there to let a caller catch it by name, or exit non-zero to fail the call`,
			cmds: [][]string{runF("--slot", `finder=exec:echo '{"error": "not found"}'`)}},
		{name: "callee answers a word outside its declared set", files: f(words), by: atRun, want: `grader returns "urgent" for its output level, which it declares ("low" | "high")`,
			cmds: [][]string{runF("--slot", `grader=exec:echo '"urgent"'`)}},
		{name: "input outside its declared set of words", files: f(words), by: beforeIt, want: `--input mode: want one of "fast", "slow", got "quick"`,
			cmds: [][]string{runF("--input", "mode=quick", "--slot", `grader=exec:echo '"low"'`)}},
		{name: "reviewer answers plain text", files: review, by: atRun, want: `got text, not an object: "looks good`,
			cmds: reviewer(`echo looks good`)},
		{name: "reviewer leaves out a declared field", files: review, by: atRun, want: `the answer has no "notes"`,
			cmds: reviewer(`echo '{"accepted": true}'`)},
		{name: "reviewer answers a field of the wrong type", files: review, by: atRun, want: `its "accepted" is "yes", not boolean`,
			cmds: reviewer(`echo '{"accepted": "yes", "notes": ""}'`)},
		{name: "reviewer answers a list", files: review, by: atRun, want: "got list, not an object",
			cmds: reviewer(`echo '[true]'`)},
		{name: "reviewer answers text on every retry", files: retried, by: atRun, want: "call 'reviewer' failed after 3 attempts",
			cmds: reviewer(`echo fine`)},
		{name: "function returns text for an integer output", files: f(function(topicParam, countReturns, "let n = null\nrepeat 1:\n  n = \"many\"\nreturn n")), by: atRun,
			want: `f returns "many" for its output count, which it declares (integer)`, cmds: [][]string{runF("--input", "topic=x")}},
		{name: "function returns a string for a list output", files: f(function("", "- `tags` (string[]): the tags\n", "let t = null\nrepeat 1:\n  t = \"a, b\"\nreturn t")), by: atRun,
			want: `f returns "a, b" for its output tags, which it declares (string[])`, cmds: [][]string{runF()}},
		{name: "function returns a list of numbers for string[]", files: f(function("", "- `tags` (string[]): the tags\n", "return [1, 2]")), by: atRun,
			want: `f returns [1,2] for its output tags`, cmds: [][]string{runF()}},
		{name: "callee program answers the wrong type", files: f(caller), by: atRun, want: `counter returns "seven" for its output count`,
			cmds: [][]string{runF("--slot", `counter=exec:echo '{"count": "seven", "title": "t"}'`)}},
		{name: "callee program answers text where two outputs are declared", files: f(caller), by: atRun, want: "counter returns string, but it declares 2 outputs (count, title)",
			cmds: [][]string{runF("--slot", `counter=exec:echo done`)}},
		{name: "return leaves out a declared output", files: f(function("", twoReturns, "return { title: \"t\" }")), by: byLint,
			want: "this object lacks the output 'body'", cmds: [][]string{{"lint", "f.prose.md"}}},
		{name: "return of a value without a declared output", files: f(function("", twoReturns, "let r = null\nrepeat 1:\n  r = { title: \"t\" }\nif r.title:\n  return r\nreturn r")), by: atRun,
			want: `f returns an object without the key "body", but it declares 2 outputs (title, body)`, cmds: [][]string{runF()}},
		{name: "pattern returns a declared output of the wrong type", files: p(pattern(oneSlot, "", "let r = call svc\nreturn r") + "\n### Ensures\n\n- `n` (integer): a count\n- `body`: a body\n"), by: atRun,
			want: `p returns "three" for its output n, which it declares (integer)`, cmds: [][]string{runP("--slot", `svc=exec:echo '{"n": "three", "body": "b"}'`)}},
		{name: "service fails", files: p(pattern(oneSlot, "", "let r = call svc\nreturn r")), by: atRun, want: "call 'svc' failed after 1 attempt",
			cmds: [][]string{runP("--slot", "svc=exec:echo broken >&2; exit 3")}},
	}
}

// preflightRows are the mistakes that can be known before the run.
func preflightRows() []mistake {
	svc := p(pattern(oneSlot, topicInput, "let r = call svc\n  topic: topic\nreturn r"))
	judged := p(pattern(oneSlot, "", "let r = call svc\nif the result reads well to a newcomer and cites its sources:\n  return r\nreturn null"))
	author := f(function("- `request` (string): what to write\n", "- `text` (string): the text\n",
		"let triage = call triager\n  request: request\nif triage has blocking missing decisions:\n  throw \"unresolved\"\nreturn call writer\n  triage: triage") +
		"\n## triager\n\n### Parameters\n\n- `request`: what\n\n### Returns\n\n- `decisions`: what\n\n## writer\n\n### Parameters\n\n- `triage`: what\n\n### Returns\n\n- `text`: the text\n")
	rounds := p(pattern(oneSlot, roundsInput, "repeat max_rounds:\n  call svc\nreturn null"))
	return []mistake{
		{name: "program not in PATH", files: svc, by: beforeIt, want: "the program prose-no-such-tool is not in PATH",
			cmds: [][]string{runP("--slot", "svc=exec:prose-no-such-tool --fast", "--input", "topic=x")}},
		{name: "program path not executable", files: map[string]string{"p.prose.md": svc["p.prose.md"], "svc.sh": "echo hi\n"}, by: beforeIt,
			want: "./svc.sh is not executable", cmds: [][]string{runP("--slot", "svc=exec:./svc.sh", "--input", "topic=x")}},
		{name: "model-needing condition, no model (pattern)", files: judged, by: beforeIt,
			want: `condition "the result reads well to a newcomer and cites its sources" needs a model to judge, and none is configured`,
			cmds: [][]string{runP("--slot", "svc=exec:echo hi")}},
		{name: "model-needing condition, no model (function, after a call)", files: author, by: beforeIt,
			want: `condition "triage has blocking missing decisions" needs a model to judge`,
			cmds: [][]string{runF("--slot", `triager=exec:echo '{"decisions": []}'`, "--slot", "writer=exec:echo done", "--input", "request=x")}},
		{name: "everything at once, in one report", files: svc, by: beforeIt, want: "not in PATH (install it, or bind the slot to its full path)\nmissing required input \"topic\"", // both
			cmds: [][]string{runP("--slot", "svc=exec:prose-no-such-tool")}},
		{name: "slot name misspelt", files: svc, by: beforeIt, want: `unknown slot "scv"`,
			cmds: [][]string{runP("--slot", "scv=exec:echo", "--input", "topic=x")}},
		{name: "slot not bound", files: svc, by: beforeIt, want: `slot "svc" is not bound`, cmds: [][]string{runP("--input", "topic=x")}},
		{name: "binding of no known kind", files: svc, by: beforeIt, want: "cannot tell what \"svc.sh\" is", cmds: [][]string{runP("--slot", "svc=svc.sh", "--input", "topic=x")}},
		{name: "required input missing", files: svc, by: beforeIt, want: `missing required input "topic"`, cmds: [][]string{runP("--slot", "svc=exec:echo")}},
		{name: "input name misspelt", files: svc, by: beforeIt, want: `unknown input "topc" (did you mean "topic"?)`,
			cmds: [][]string{runP("--slot", "svc=exec:echo", "--input", "topic=x", "--input", "topc=y")}},
		{name: "config of the wrong type", files: rounds, by: beforeIt, want: "want an integer", cmds: [][]string{runP("--slot", "svc=exec:echo", "--config", "max_rounds=three")}},
		{name: "--input-json not JSON", files: svc, by: beforeIt, want: "--input-json", cmds: [][]string{runP("--slot", "svc=exec:echo", "--input-json", "{topic: x}")}},
		{name: "function input missing", files: f(function(topicParam, countReturns, "return 1")), by: beforeIt, want: `input "topic" is missing`, cmds: [][]string{runF()}},
		{name: "function callee misspelt", files: f(function("", countReturns, "return call countr") + "\n## counter\n\n### Returns\n\n- `count` (integer): n\n"), by: byLint,
			want: "countr", cmds: [][]string{{"lint", "f.prose.md"}}},
		{name: "function rendered by a model, none configured", files: f(function(topicParam, countReturns, "")), by: beforeIt,
			want: "no model is configured, and these nodes are rendered by one", cmds: [][]string{runF("--input", "topic=x")}},
	}
}

// lintRows are the mistakes of a spec itself, and those other parts of
// the project are to catch (skipped until they do).
func lintRows() []mistake {
	callee := "\n## counter\n\n### Parameters\n\n- `topic` (string): what\n\n### Returns\n\n- `count` (integer): how many\n- `title` (string): a title\n"
	one := "\n## fetch\n\n### Parameters\n\n- `topic` (string): what\n\n### Returns\n\n- `data` (string): the data\n"
	lint := [][]string{{"lint", "p.prose.md"}}
	lintF := [][]string{{"lint", "f.prose.md"}}
	return []mistake{
		{name: "undefined name", files: p(pattern(oneSlot, topicInput, "let r = call svc\n  topic: topc\nreturn r")), by: byLint, want: "undefined name 'topc'; did you mean 'topic'?", cmds: lint},
		{name: "member of a callee misspelt", files: f(function("", "- `out`: n\n", "let r = call counter\n  topic: \"x\"\nreturn r.cuont") + callee), by: byLint,
			want: "cuont", cmds: lintF},
		{name: "loop up to N", files: p(pattern(oneSlot, roundsInput, "loop up to max_rounds:\n  call svc\nreturn null")), by: byLint, want: "repeat N:", cmds: lint},
		{name: "return leaves out a declared output (literal)", files: f(function("", twoReturns, "return { body: \"b\" }")), by: byLint, want: "lacks the output 'title'", cmds: lintF},
		{name: "member of a slot misspelt where ensures names fields", files: p(pattern(strings.Replace(reviewSlot, "accepted", "approved", 1), "", reviewCall+"if review.aproved:\n  return 1\nreturn 0")), by: byLint,
			want: "did you mean \"approved\"", cmds: lint},
		{name: "member read of a text value", files: p(pattern(oneSlot, "", "let r = call svc\nif r.accepted:\n  return 1\nreturn 0")), by: atRun,
			want: "accepted", cmds: [][]string{runP("--slot", "svc=exec:echo looks good")}},
		{name: "type written int", files: f(function("", "- `count` (int): how many\n", "return 1")), by: rightValue, want: `"count": 1`, cmds: [][]string{runF()}},
		{name: "type name misspelt", files: f(function("", "- `count` (integr): how many\n", "return 1")), by: byLint, want: `unknown type "integr"; did you mean integer?`, cmds: lintF},
		{name: "type written list", files: f(function("- `commits` (list): the commits\n", "- `n` (integer): n\n", "let n = 0\nfor c in commits:\n  n = n + 1\nreturn n")), by: rightValue,
			want: `"n": 2`, cmds: [][]string{runF("--input-json", `{"commits": ["a", "b"]}`)}},
		{name: "untyped default read as text", files: p(pattern(oneSlot, "config:- `max_rounds`: 3\n", "repeat max_rounds:\n  call svc\nreturn null")), by: beforeIt,
			want: `--config max_rounds: want an integer, got "three"`, cmds: [][]string{runP("--slot", "svc=exec:echo", "--config", "max_rounds=three")}},
		{name: "world input that nothing maintains", files: map[string]string{"status.prose.md": statusNode}, by: byLint,
			want: "broken", cmds: [][]string{{"lint", "."}}},
		{name: "world input whose producer never published", files: map[string]string{"services.prose.md": servicesNode, "status.prose.md": statusNode + statusExecution}, by: atRun,
			want: "'broken' is absent: services has not published it yet", cmds: [][]string{{"run", ".", "--slot", "services=exec:echo down >&2; exit 3"}}},
		{name: "fallback of the wrong shape", files: f(function("", "- `out` (string): o\n", "let r = call fetch\n  topic: \"t\"\n  on_fail use { value: \"fallback\" }\nreturn r.data") + one), by: byLint,
			want: "fallback", cmds: lintF},
		{name: "re-assignment under an if", files: f(function("", "- `out` (integer): o\n", "let t = call counter\n  topic: \"a\"\nif t.count > 5:\n  t = call counter\n    topic: \"b\"\nreturn t.cuont") + callee), by: byLint,
			want: "cuont", cmds: lintF},
		{name: "return adds an undeclared output", files: f(function("", twoReturns, "return { title: \"t\", body: \"b\", extra: 1 }")), by: byLint,
			want: "extra", cmds: lintF},
		{name: "throw of an undeclared error", files: f(function("", countReturns, "throw \"no-such-error\"") + "\n### Errors\n\n- `too-big`: too big\n"), by: byLint,
			want: "no-such-error", cmds: lintF},
		{name: "two outputs with the same name", files: f(function("", "- `n` (integer): a\n- `n` (integer): b\n", "return { n: 1 }")), by: byLint,
			want: `output "n" is declared twice (first on line 12)`, cmds: lintF},
		{name: "Execution heading misspelt", files: f(function("", countReturns, "") + "\n### Excution\n\n```prose\nreturn 1\n```\n"), by: byLint,
			want: "Excution", cmds: lintF},
		{name: "Execution heading one level too deep", files: f(function("", countReturns, "") + "\n#### Execution\n\n```prose\nreturn 1\n```\n"), by: byLint,
			want: `heading "#### Execution" is at level 4, a subsection of ### Returns`, cmds: lintF},
		{name: "library function called with a parameter it does not take", files: f(function("", "- `short`: s\n", "let s = call std/roles/summarizer\n  document: \"d\"\nreturn s")), by: byLint,
			want: `std/roles/summarizer declares no input "document"`, cmds: lintF},
		{name: "input named like the node it means to call", files: f(function("- `fetch`: the topic\n", "- `out` (string): o\n", "let r = call fetch\n  topic: fetch\nreturn r") + one), by: byLint,
			want: `call fetch calls the input "fetch", which hides the node of that name`, cmds: lintF},
		{name: "verdict compared with a word its slot never answers", files: p(pattern("- `judge`\n  - ensures: `{verdict: \"accept\" | \"reject\"}`\n", "", "let v = call judge\nif v.verdict == \"approved\":\n  return 1\nreturn 0")), by: byLint,
			want: `v.verdict is one of "accept", "reject"`, cmds: lint},
		{name: "caught error's kind compared with a declared error", files: f(function("", "- `out`: o\n", "try:\n  let r = call fetch\n    topic: \"t\"\n  return r\ncatch as e:\n  if e.kind == \"not-found\":\n    return \"none\"\n  throw e") + one), by: byLint,
			want: `e.kind is one of "call", "throw", "runtime", "judge"`, cmds: lintF},
		{name: "test expects a word its subject never gives", files: map[string]string{"f.prose.md": function("", "- `level` (\"low\" | \"high\"): l\n", "return \"low\""),
			"t.test.prose.md": "---\nname: t\nkind: test\nsubject: f\n---\n\n### Expects Not\n\n- `level`: equals \"urgent\"\n\n### Expects\n\n- `level`: is present\n"}, by: byLint,
			want: `level is declared ("low" | "high") at f.prose.md:12:4, so it never equals "urgent": this item always passes`, cmds: [][]string{{"lint", "t.test.prose.md"}}},
	}
}

func allMistakes() []mistake {
	var rows []mistake
	for _, group := range [][]mistake{boundaryRows(), gateRows(), preflightRows(), lintRows()} {
		rows = append(rows, group...)
	}
	return rows
}

func TestMistakesAreNeverSilent(t *testing.T) {
	rows := allMistakes()
	if len(rows) < 40 {
		t.Fatalf("%d rows; the table keeps at least 40", len(rows))
	}
	for _, k := range []string{"PROSE_MODEL", "OPENAI_API_KEY", "OPENAI_BASE_URL"} {
		t.Setenv(k, "")
	}
	counts := map[caught]int{}
	for _, m := range rows {
		t.Run(m.name, func(t *testing.T) {
			if m.skip != "" && os.Getenv("MISTAKES_ALL") == "" {
				t.Skip(m.skip)
			}
			dir := t.TempDir()
			for name, content := range m.files {
				if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			t.Chdir(dir)
			var code int
			var out, errw string
			for i, args := range m.cmds {
				code, out, errw = runMain(t, args...)
				if i < len(m.cmds)-1 && code == 0 && args[0] == "run" {
					t.Fatalf("setting the stage, prose %s exited 0:\n%s%s", strings.Join(args, " "), out, errw)
				}
			}
			last := m.cmds[len(m.cmds)-1]
			if code == 0 && m.by != rightValue {
				t.Fatalf("SILENT: prose %s exited 0 with\n%s%s", strings.Join(last, " "), out, errw)
			}
			msg := out + errw // lint and a drain report on stdout
			holds := true
			for w := range strings.SplitSeq(m.want, "\n") {
				holds = holds && strings.Contains(msg, w)
			}
			if code != m.by.code() || !holds {
				t.Fatalf("prose %s: exit %d, want %d (%s) with %q\nstdout:\n%s\nstderr:\n%s", strings.Join(last, " "), code, m.by.code(), m.by, m.want, out, errw)
			}
			if m.by == beforeIt && strings.Contains(errw, "calls") && !strings.Contains(errw, "0 calls") {
				t.Errorf("caught before the run, yet calls ran:\n%s", errw)
			}
			counts[m.by]++
		})
	}
	t.Logf("caught: %d by lint, %d before the run, %d at run time, %d answers refused; %d now give the right value",
		counts[byLint], counts[beforeIt], counts[atRun], counts[refused], counts[rightValue])
}
