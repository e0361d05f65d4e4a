package syntax

import (
	"fmt"
	"strings"
	"testing"
)

// parseOK parses code and fails the test on any diagnostic.
func parseOK(t *testing.T, code string) *Program {
	t.Helper()
	prog, errs := ParseString("t.prose", code)
	if len(errs) > 0 {
		t.Fatalf("unexpected errors for\n%s\n%s", code, errs)
	}
	return prog
}

func TestParseForms(t *testing.T) {
	tests := []struct{ name, code, want string }{
		{"let", `let x = 1`, `(let x 1)`},
		{"const", `const x = "high"`, `(const x "high")`},
		{"let call", "let x = call advancer\n  task_brief: task_brief",
			`(let x (call advancer (arg task_brief task_brief)))`},
		{"bare call no args", `call notify`, `(call notify)`},
		{"call member target", "call tier.model\n  a: 1", `(call (. tier model) (arg a 1))`},
		{"call clauses any order", "let f = call flaky\n  retries 2\n  key: topic\n  on_fail use { data: \"fallback for \" + topic }\n  timeout 30s\n  backoff {initial: 200ms, max: 10s, multiplier: 2}",
			`(let f (call flaky (arg key topic) (retries 2) (timeout 30s) (backoff (object (initial 200ms) (max 10s) (multiplier 2))) (on_fail use (object (data (+ "fallback for " topic))))))`},
		{"on_fail abort", "call a\n  on_fail abort", `(call a (on_fail abort))`},
		{"timeout seconds", "call a\n  timeout 5", `(call a (timeout 5))`},
		{"nested call arg", "let x = call a\n  inner: call b\n    k: 1\n  after: 2\nlet y = x",
			"(let x (call a (arg inner (call b (arg k 1))) (arg after 2)))\n(let y x)"},
		{"multiline object arg", "call a\n  actuals: {\n    x: 1,\n    y: 2\n  }\n  z: 3",
			`(call a (arg actuals (object (x 1) (y 2))) (arg z 3))`},
		{"assign", `x = y.z`, `(= x (. y z))`},
		{"index assign", `x[i + 1] = "v"`, `(= (index x (+ i 1)) "v")`},
		{"keyword as variable", "let record = 1\nrecord = 2\nrecord record in first",
			"(let record 1)\n(= record 2)\n(record record first)"},
		{"record as value", "let r = for record in rs:\n  record", `(let r (for record rs record))`},
		{"append", `append proposal to certified_progress`, `(append proposal certified_progress)`},
		{"record object", `record { round: round, thesis: t } in exchange`, `(record (object (round round) (thesis t)) exchange)`},
		{"repeat", "repeat 3:\n  x = 1", `(repeat 3 (= x 1))`},
		{"repeat as", "repeat max_rounds as round:\n  continue", `(repeat max_rounds as round (continue))`},
		{"for", "for x in xs:\n  break", `(for x xs (break))`},
		{"for index", "for x, i in xs:\n  y = briefs[i]", `(for x,i xs (= y (index briefs i)))`},
		{"parallel for stmt", "parallel for c in cs:\n  call c", `(parallel-for c cs (call c))`},
		{"parallel repeat let", "let r = parallel repeat n:\n  call probe\n    m: m", `(let r (parallel-repeat n (call probe (arg m m))))`},
		{"let for", "let r = for x in xs:\n  x", `(let r (for x xs x))`},
		{"let repeat", "let r = repeat tier.count:\n  1", `(let r (repeat (. tier count) 1))`},
		{"parallel first for", "let w = parallel first for c in cs:\n  return c", `(let w (parallel-first-for c cs (return c)))`},
		{"parallel first repeat", "parallel first repeat 3 as k:\n  return k", `(parallel-first-repeat 3 as k (return k))`},
		{"first as variable", "let first = 1\nfor first in xs:\n  first", "(let first 1)\n(for first xs first)"},
		{"parallel block", "parallel:\n  let a = call x\n  let b = call y", `(parallel (let a (call x)) (let b (call y)))`},
		{"parallel modifiers", "parallel (\"any\", count: 2, on-fail: \"continue\"):\n  let a = call x\n  let b = call y", `(parallel (join "any") (count 2) (on-fail "continue") (let a (call x)) (let b (call y)))`},
		{"destructuring let", "let {a, b} = call x", "(let {a, b} (call x))\n(let a (. {a, b} a))\n(let b (. {a, b} b))"},
		{"loop for each", "loop for each item, i in items (max: 20):\n  call p\n    item: item", `(loop-for-each item,i items (max 20) (call p (arg item item)))`},
		{"parallel on - fail", "parallel (on - fail: \"ignore\", \"first\"):\n  let a = call x", `(parallel (join "first") (on-fail "ignore") (let a (call x)))`},
		{"loop while", "loop while x < 3 (max: 10):\n  x = x + 1", `(while (< x 3) (max 10) (= x (+ x 1)))`},
		{"loop until as", "loop until done (max: cfg.n) as i:\n  done = true", `(until done (max (. cfg n)) as i (= done true))`},
		{"loop natural", "loop until the critic is satisfied (max: 5):\n  break", `(until (natural "the critic is satisfied") (max 5) (break))`},
		{"loop no max", "loop while x:\n  break", `(while x (break))`},
		{"if else", "if a:\n  x = 1\nelse:\n  x = 2", `(if a (then (= x 1)) (else (= x 2)))`},
		{"elif", "if a:\n  x\nelif b:\n  y\nelif c:\n  z\nelse:\n  w",
			`(if a (then x) (else (elif b (then y) (else (elif c (then z) (else w))))))`},
		{"if natural", "if verdict certifies the proposal:\n  return", `(if (natural "verdict certifies the proposal") (then (return)))`},
		{"if is present", "if attempt.error is present:\n  continue", `(if (is (. attempt error) present) (then (continue)))`},
		{"if meets", "if current_score meets threshold:\n  break", `(if (meets current_score threshold) (then (break)))`},
		{"is not null", "if x is not null:\n  x", `(if (is-not x null) (then x))`},
		{"try catch finally", "try:\n  call a\ncatch as e:\n  throw e\nfinally:\n  x = 1",
			`(try (body (call a)) (catch as e (throw e)) (finally (= x 1)))`},
		{"try catch no var", "try:\n  call a\ncatch:\n  x = 1", `(try (body (call a)) (catch (= x 1)))`},
		{"try finally", "try:\n  call a\nfinally:\n  x = 1", `(try (body (call a)) (finally (= x 1)))`},
		{"return bare", "return", `(return)`},
		{"return call", "return call a\n  k: 1", `(return (call a (arg k 1)))`},
		{"world read", "let p = read_world_model(\"self\")\nreturn { prior: read_world_model(\"count-summary\") }",
			"(let p (call read_world_model (arg node \"self\")))\n(return (object (prior (call read_world_model (arg node \"count-summary\")))))"},
		{"world read is a name without parentheses", "let f = read_world_model", `(let f read_world_model)`},
		{"throw", `throw "boom"`, `(throw "boom")`},
		{"bare throw in catch", "try:\n  x = 1\ncatch:\n  throw\nthrow 2", "(try (body (= x 1)) (catch (throw)))\n(throw 2)"},
		{"object shorthand", `let o = { a, b }`, `(let o (object (a a) (b b)))`},
		{"object lines no commas", "return {\n  result: r\n  \"odd key\": 2,\n  c\n}", `(return (object (result r) ("odd key" 2) (c c)))`},
		{"empty object list", `let x = [{}, []]`, `(let x (list (object) (list)))`},
		{"list lines", "let l = [\n  1\n  2.5, -3,\n]", `(let l (list 1 2.5 -3))`},
		{"strings", `let s = "a\"b\n" + """x"""`, `(let s (+ "a\"b\n" "x"))`},
		{"brace escapes", `let s = "\{a\} {{b}"`, `(let s "{a} {b}")`},
		{"triple escapes", `let s = """a\nb\t\"c\" \{x\}"""`, `(let s "a\nb\t\"c\" {x}")`},
		{"triple multiline", "let s = \"\"\"one\n  two\"\"\"\nlet t = 1", "(let s \"one\\n  two\")\n(let t 1)"},
		{"condition in ** markers", "if **x is empty**:\n  y = 1", `(if (natural "x is empty") (then (= y 1)))`},
		{"expression in ** markers", "if **a == 1**:\n  y = 1\nelif **b**:\n  y = 2", `(if (== a 1) (then (= y 1)) (else (elif b (then (= y 2)))))`},
		{"condition in *** lines", "if ***\n  a == 1\n  and b\n***:\n  y = 1\nz = 2", "(if (and (== a 1) b) (then (= y 1)))\n(= z 2)"},
		{"loop condition in ** markers", "loop until **a == 1** (max: 3):\n  y = 1", `(until (== a 1) (max 3) (= y 1))`},
		{"durations", `let d = [500ms, 30s, 2m, 1h, 1h30m]`, `(let d (list 500ms 30s 2m 1h 1h30m))`},
		{"hyphen member", `let z = verdict.re-check.x`, `(let z (. (. verdict re-check) x))`},
		{"hyphen member with digits", `let z = m.gpt-4o + m.top-3x`, `(let z (+ (. m gpt-4o) (. m top-3x)))`},
		{"member minus a number", `let z = xs[xs.length-1]`, `(let z (index xs (- (. xs length) 1)))`},
		{"member minus member", `let z = a.b-c.d - 1`, `(let z (- (. (. a b-c) d) 1))`},
		{"member minus digits then name", `let z = a.n-2-b`, `(let z (- (- (. a n) 2) b))`},
		{"minus spaced", `let z = a - b - c`, `(let z (- (- a b) c))`},
		// A hyphen between two letters joins a name (0.15 identifiers).
		{"hyphen between letters joins", `let z = a - b-c`, `(let z (- a b-c))`},
		{"hyphen before a digit subtracts", `let z = n-1`, `(let z (- n 1))`},
		{"hyphen after a digit subtracts", `let z = n1-b`, `(let z (- n1 b))`},
		{"length index", `let n = xs.length + xs[0].y`, `(let n (+ (. xs length) (. (index xs 0) y)))`},
		{"precedence", `let b = not a == 1 or b and c != d`, `(let b (or (not (== a 1)) (and b (!= c d))))`},
		{"parens", `let b = (a or b) and c`, `(let b (and (or a b) c))`},
		{"comparisons", `let b = [a < b, a <= b, a > b, a >= b]`, `(let b (list (< a b) (<= a b) (> a b) (>= a b)))`},
		{"literals", `let v = [null, true, false, 0, 1.25]`, `(let v (list null true false 0 1.25))`},
		{"unary minus", `let v = -(a)`, `(let v (- a))`},
		{"comments and blanks", "# head\nlet x = 1  # trailing\n\n   # indented comment\nif x:\n\n  # inside\n  y = 2\n", "(let x 1)\n(if x (then (= y 2)))"},
		{"bare value stmt", "let r = repeat 2:\n  \"v\"", `(let r (repeat 2 "v"))`},
		{"whole block indented", "  let x = 1\n  if x:\n    y = 2", "(let x 1)\n(if x (then (= y 2)))"},
		{"crlf", "let x = 1\r\nif x:\r\n  y = 2\r\n", "(let x 1)\n(if x (then (= y 2)))"},
		{"nested blocks outdent twice", "for a in as_:\n  for b in bs:\n    x = 1\ny = 2", "(for a as_ (for b bs (= x 1)))\n(= y 2)"},
		{"unicode names", `let café = "é"`, `(let café "é")`},
		{"empty", "", ""},
		{"only comments", "# nothing\n\n", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Dump(parseOK(t, tt.code))
			if got != tt.want {
				t.Errorf("code:\n%s\ngot:\n%s\nwant:\n%s", tt.code, got, tt.want)
			}
		})
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		name, code string
		want       string // the one diagnostic: LINE:COL [CODE]
		rest       string // dump of what still parsed
	}{
		{"world read of a name", "let p = read_world_model(node)", "1:26 [syntax/expected]", ""},
		{"world read unclosed", "let p = read_world_model(\"self\" x)", "1:33 [syntax/expected]", ""},
		{"bad indent", "let x = 1\n  let y = 2\nlet z = 3", "2:3 [syntax/indent]", "(let x 1)\n(let z 3)"},
		{"unindent mismatch", "if x:\n    y = 1\n  z = 1", "3:3 [syntax/indent]", "(if x (then (= y 1)))\n(= z 1)"},
		// upstream's ProseScript indents with spaces only: a tab is an
		// error at the tab, once per block, the structure read as written
		{"tabs consistent", "if x:\n\ty = 1\n\tz = 2", "2:1 [syntax/tabs]", "(if x (then (= y 1) (= z 2)))"},
		{"tabs and spaces", "if x:\n\ty = 1\n        z = 1", "2:1 [syntax/tabs]", "(if x (then (= y 1)))\n(= z 1)"},
		{"tab and space on one line", "if x:\n  y = 1\n \tz = 1", "3:2 [syntax/tabs]", "(if x (then (= y 1)))\n(= z 1)"},
		{"unclosed object", "return {\n  a: 1\n\nlet y = 2", "1:8 [syntax/unclosed]", "(let y 2)"},
		{"unclosed list", "let x = [1, 2", "1:9 [syntax/unclosed]", ""},
		{"mismatched bracket", "let x = [1, 2}", "1:14 [syntax/bracket]", ""},
		{"stray closer", "let x = 1)", "1:10 [syntax/unexpected]", ""},
		{"catch without try", "catch as e:\n  x = 1\nlet y = 2", "1:1 [syntax/catch-without-try]", "(let y 2)"},
		{"finally without try", "x = 1\nfinally:\n  x = 2", "2:1 [syntax/catch-without-try]", "(= x 1)"},
		{"else without if", "let a = 1\nelse:\n  x = 1\nlet y = 2", "2:1 [syntax/else-without-if]", "(let a 1)\n(let y 2)"},
		{"else at wrong level", "if a:\n  if b:\n    x\n  y\n  else:\n    z", "5:3 [syntax/else-without-if]", "(if a (then (if b (then x)) y))"},
		{"missing colon for", "for x in xs\n  y = 1\nlet z = 2", "1:12 [syntax/missing-colon]", "(let z 2)"},
		{"missing colon before comment", "for x in xs  # each\n  y = 1", "1:12 [syntax/missing-colon]", ""},
		{"missing colon if", "if a == b\n  y = 1\nlet z = 2", "1:10 [syntax/missing-colon]", "(let z 2)"},
		{"missing colon else", "if a:\n  x\nelse\n  y\nlet z = 2", "3:5 [syntax/missing-colon]", "(let z 2)"},
		{"unknown clause", "call a\n  k: 1\n  retry 3\nlet z = 2", "3:3 [syntax/unknown-clause]", "(let z 2)"},
		{"argument without colon", "call a\n  task_brief\nlet z = 2", "2:3 [syntax/unknown-clause]", "(let z 2)"},
		{"duplicate clause", "call a\n  retries 1\n  retries 2", "3:3 [syntax/duplicate-clause]", ""},
		{"duplicate arg", "call a\n  k: 1\n  k: 2", "3:3 [syntax/duplicate-arg]", ""},
		{"backoff not object", "call a\n  backoff 3", "2:11 [syntax/expected]", ""},
		{"on_fail bad", "call a\n  on_fail retry", "2:11 [syntax/expected]", ""},
		{"no block", "if x:\ny = 1", "1:5 [syntax/empty-block]", "(= y 1)"},
		{"inline block", "if x: y = 1", "1:7 [syntax/expected]", ""},
		{"try without catch", "try:\n  x = 1\nlet y = 2", "1:1 [syntax/try-without-catch]", "(try (body (= x 1)))\n(let y 2)"},
		{"broken condition", "if x == :\n  y\nlet z = 1", "1:9 [syntax/expected]", "(let z 1)"},
		{"dangling operator", "let x = 1 +\nlet y = 2", "1:12 [syntax/expected]", "(let y 2)"},
		{"unterminated string", "let x = \"abc\nlet y = 2", "1:9 [syntax/token]", "(let y 2)"},
		{"unterminated triple", "let x = \"\"\"abc\nlet y = 2", "1:9 [syntax/token]", ""},
		{"bad number", "let x = 10x", "1:9 [syntax/token]", ""},
		{"huge int", "let x = 99999999999999999999", "1:9 [syntax/number]", ""},
		{"bad char", "let x = a ; b", "1:11 [syntax/unexpected]", ""},
		{"call inside expression", "let x = 1 + call a", "1:13 [syntax/call-position]", ""},
		{"assign to member", "a.b = 1", "1:1 [syntax/assign]", ""},
		{"let without name", "let = 1", "1:5 [syntax/expected]", ""},
		{"let reserved", "let and = 1", "1:5 [syntax/expected]", ""},
		{"is what", "let x = a is good", "1:14 [syntax/expected]", ""},
		{"for without in", "for x of xs:\n  y", "1:7 [syntax/expected]", ""},
		{"max unclosed word", "loop while x (max 3):\n  y", "1:19 [syntax/expected]", ""},
		{"empty condition", "if :\n  y", "1:4 [syntax/expected]", ""},
		{"continue extra", "for x in xs:\n  continue x", "2:12 [syntax/unexpected]", "(for x xs)"},
		{"else if", "if a:\n  x\nelse if b:\n  y\nlet z = 1", "3:1 [syntax/else-if]", "(let z 1)"},
		{"catch without as", "try:\n  x\ncatch e:\n  y\nlet z = 1", "3:7 [syntax/expected]", "(let z 1)"},
		{"call without target", "let x = call\n  k: 1\nlet z = 1", "1:13 [syntax/expected]", "(let z 1)"},
		{"bare call without target", "call\nlet z = 1", "1:5 [syntax/expected]", "(let z 1)"},
		{"indented arg line", "call a\n  k: 1\n    j: 2", "3:5 [syntax/indent]", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			prog, errs := ParseString("t.prose", tt.code)
			if len(errs) != 1 {
				t.Fatalf("code:\n%s\nwant exactly one diagnostic, got %d:\n%s", tt.code, len(errs), errs)
			}
			d := errs[0]
			got := strings.TrimPrefix(d.Position.String(), "t.prose:") + " [" + d.Code + "]"
			if got != tt.want {
				t.Errorf("code:\n%s\ngot  %s (%s)\nwant %s", tt.code, got, d.Message, tt.want)
			}
			if !strings.HasPrefix(d.Code, "syntax/") || d.Message == "" {
				t.Errorf("bad diagnostic %v", d)
			}
			if dump := Dump(prog); dump != tt.rest {
				t.Errorf("code:\n%s\nremaining tree:\n%s\nwant:\n%s", tt.code, dump, tt.rest)
			}
		})
	}
}

// The parser shows the first maxErrors errors of a block and counts the
// others into one last diagnostic at the block's end (issue 18, item 33:
// it no longer stops at the tenth).
func TestErrorCap(t *testing.T) {
	code := strings.Repeat("let = 1\n", maxErrors+7)
	_, errs := ParseString("t.prose", code)
	if len(errs) != maxErrors+1 {
		t.Fatalf("got %d diagnostics, want %d (capped):\n%s", len(errs), maxErrors+1, errs)
	}
	for i, d := range errs[:maxErrors] {
		if d.Line != i+1 || d.Code != "syntax/expected" {
			t.Fatalf("diagnostic %d is %v, want line %d's error, in order", i, d, i+1)
		}
	}
	if last := errs[len(errs)-1]; last.Code != "syntax/too-many-errors" || last.Message != "and 7 more syntax errors in this block" {
		t.Errorf("last diagnostic %v, want the count of the others", last)
	}
}

func TestNestingLimit(t *testing.T) {
	deep := []string{
		"let x = " + strings.Repeat("[", 5000) + strings.Repeat("]", 5000),
		"let x = " + strings.Repeat("(", 5000) + "1" + strings.Repeat(")", 5000),
		"let x = " + strings.Repeat("{a: ", 5000) + "1" + strings.Repeat("}", 5000),
		"let x = " + strings.Repeat("not ", 5000) + "a",
		"let x = " + strings.Repeat("- ", 5000) + "a",
		"let x = a" + strings.Repeat("[a", 5000) + strings.Repeat("]", 5000),
		"if " + strings.Repeat("not ", 5000) + "a:\n  x",
		"if a:\n  x\n" + strings.Repeat("elif a:\n  x\n", 5000),
	}
	var b strings.Builder
	for i := 0; i < 500; i++ {
		b.WriteString(strings.Repeat(" ", i) + "if x:\n")
	}
	b.WriteString(strings.Repeat(" ", 500) + "y = 1\n")
	deep = append(deep, b.String())
	for _, code := range deep {
		_, errs := ParseString("t.prose", code)
		if len(errs) != 1 || errs[0].Code != "syntax/nesting" {
			t.Errorf("%.40s...: got %v, want one syntax/nesting error", code, errs)
		}
	}
	// Reasonable nesting is fine.
	parseOK(t, "let x = "+strings.Repeat("[", 50)+strings.Repeat("]", 50))
}

func TestParseStringPositions(t *testing.T) {
	code := "let x = call a\n  k: \"v\"\nif x.y is null:\n  return {r: x}\n"
	prog := parseOK(t, code)
	at := func(n Node) string { return code[n.Pos():n.End()] }
	let := prog.Body[0].(*LetStmt)
	c := let.Value.(*CallExpr)
	if got := at(let); got != "let x = call a\n  k: \"v\"" {
		t.Errorf("let spans %q", got)
	}
	if got := at(c.Args[0].Value); got != `"v"` {
		t.Errorf("arg value spans %q", got)
	}
	ifs := prog.Body[1].(*IfStmt)
	if got := at(ifs.Cond); got != "x.y is null" {
		t.Errorf("cond spans %q", got)
	}
	ret := ifs.Then[0].(*ReturnStmt)
	if got := at(ret.Value); got != "{r: x}" {
		t.Errorf("return value spans %q", got)
	}
	if got := at(ifs); got != "if x.y is null:\n  return {r: x}" {
		t.Errorf("if spans %q", got)
	}
}

// Mistakes a user is likely to make get one diagnostic whose message says
// what to write instead.
func TestParseErrorMessages(t *testing.T) {
	tests := []struct{ name, code, want, msg string }{
		{"call args on the line", "let r = call svc with { a: 1 }\nlet z = 1", "1:18 [syntax/call-args]", "`call svc` then `  key: value`"},
		{"call args in parens", "call tier.model(a: 1)", "1:16 [syntax/call-args]", "`call tier.model`"},
		{"call args as object", "call svc { a: 1 }", "1:10 [syntax/call-args]", "lines below it"},
		{"call args on the call's line", "let r = call svc x: 1", "1:18 [syntax/call-args]", "`call svc` then `  key: value`"},
		{"repeat without count", "repeat:\n  x = 1\nlet z = 1", "1:7 [syntax/expected]", "repeat N:"},
		{"repeat as without count", "repeat as i:\n  x = 1", "1:8 [syntax/expected]", "number of iterations"},
		{"for without list", "for x in:\n  y", "1:9 [syntax/expected]", "the list to loop over"},
		{"on_fail use without value", "call a\n  on_fail use\nlet z = 1", "2:14 [syntax/expected]", "fallback value"},
		{"timeout without value", "call a\n  timeout", "2:10 [syntax/expected]", "timeout 30s"},
		{"retries without value", "call a\n  retries", "2:10 [syntax/expected]", "retries 2"},
		{"return two values", "return 1, 2", "1:9 [syntax/unexpected]", "return a list [a, b] or an object { a, b }"},
		{"while without loop", "while x < 3:\n  x = x + 1\nlet z = 1", "1:1 [syntax/expected]", "loop while COND (max: N):"},
		{"open loop as a value", "let x = loop (max: 3):\n  break\nlet z = 1", "1:9 [syntax/loop-value]", "is a statement, not a value"},
		{"loop until as a value", "let x = loop until done (max: 3):\n  break\nlet z = 1", "1:9 [syntax/loop-value]", "collect with for, repeat or loop for each"},
		{"loop up to", "loop up to config.max_rounds:\n  x = x + 1\nlet z = 1", "1:1 [syntax/loop-up-to]", "write 'repeat N:' for N passes, or 'loop until COND (max: N):'"},
		{"throw nothing", "throw", "1:6 [syntax/expected]", "the value to throw"},
		{"bare throw after catch", "try:\n  x = 1\ncatch:\n  y = 1\nthrow\n", "5:6 [syntax/expected]", "inside catch only"},
		{"append nothing", "append to xs", "1:8 [syntax/expected]", "the value to add"},
		{"max without value", "loop while x (max: ):\n  y", "1:20 [syntax/expected]", "(max: 10)"},
		{"assignment in if", "if x = 1:\n  y\nlet z = 1", "1:6 [syntax/expected]", "compares with '=='"},
		{"assignment in loop while", "loop while x = 1 (max: 3):\n  y", "1:14 [syntax/expected]", "'loop while A == B:'"},
		{"assignment in elif", "if a:\n  x\nelif x = 1:\n  y\nlet z = 1", "3:8 [syntax/expected]", "=="},
		{"parallel without colon", "parallel\n  let a = 1\nlet z = 1", "1:9 [syntax/missing-colon]", "parallel line"},
		{"try without colon", "try\n  x = 1\ncatch:\n  y = 1\nlet z = 1", "1:4 [syntax/missing-colon]", "try line"},
		{"and written &&", "let x = a && b", "1:11 [syntax/unexpected]", "write 'and'"},
		{"or written ||", "let x = a || b", "1:11 [syntax/unexpected]", "write 'or'"},
		{"and written && in a condition", "if x > 3 && x < 10:\n  y = 1\nlet z = 1", "1:10 [syntax/expected]", "in the if condition: write 'and'"},
		{"or written || in a loop condition", "loop while a || b (max: 3):\n  y = 1", "1:14 [syntax/expected]", "write 'or'"},
		{"not written !", "let x = !a", "1:9 [syntax/token]", "write 'not'"},
		{"unknown escape", `let x = "a\qb"`, "1:9 [syntax/token]", `invalid escape \q`},
		{"unknown escape in triple", `let x = """a\d+"""`, "1:9 [syntax/token]", `invalid escape \d`},
		{"** outside a condition", "let z = a ** b", "1:11 [syntax/unexpected]", "mark the whole condition"},
		{"*** never closed", "if ***\n  a == 1\n", "1:4 [syntax/unclosed]", "add the matching '***'"},
		{"single quotes", "let x = 'a'", "1:9 [syntax/token]", "double quotes"},
		{"ternary", "let x = a ? 1 : 2", "1:11 [syntax/unexpected]", "if/else"},
		{"multiplication", "let x = a * 2", "1:11 [syntax/unexpected]", "+ and -"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, errs := ParseString("t.prose", tt.code)
			if len(errs) != 1 {
				t.Fatalf("code:\n%s\nwant exactly one diagnostic, got %d:\n%s", tt.code, len(errs), errs)
			}
			d := errs[0]
			got := strings.TrimPrefix(d.Position.String(), "t.prose:") + " [" + d.Code + "]"
			if got != tt.want || !strings.Contains(d.Message, tt.msg) {
				t.Errorf("code:\n%s\ngot  %s %s\nwant %s, a message with %q", tt.code, got, d.Message, tt.want, tt.msg)
			}
		})
	}
}

// A flat if/elif chain is not nesting: 150 branches parse (the nesting
// limit is 100 levels), and a chain longer than maxElifs is refused at the
// elif that passes it.
func TestLongElifChainIsNotNesting(t *testing.T) {
	chain := func(n int) string {
		var b strings.Builder
		for i := range n {
			kw := "elif"
			if i == 0 {
				kw = "if"
			}
			fmt.Fprintf(&b, "%s x == %d:\n  return %d\n", kw, i, i)
		}
		return b.String() + "else:\n  return -1\n"
	}
	prog, errs := ParseString("t.md", chain(150))
	if err := errs.Err(); err != nil {
		t.Fatal(err)
	}
	n := 0
	for s := prog.Body[0]; s != nil; n++ {
		is := s.(*IfStmt)
		s = nil
		if len(is.Else) == 1 {
			if next, ok := is.Else[0].(*IfStmt); ok && next.Elif {
				s = next
			}
		}
	}
	if n != 150 {
		t.Errorf("chain of %d branches, want 150", n)
	}
	_, errs = ParseString("t.md", chain(maxElifs+1))
	if err := errs.Err(); err == nil || !strings.Contains(err.Error(), fmt.Sprintf("t.md:%d:1: error: an if/elif chain of more than %d branches", 2*maxElifs+1, maxElifs)) {
		t.Errorf("chain of %d: %v", maxElifs+1, err)
	}
}

// Every syntax error of a block is reported, in order: a lexical error
// (a bracket left open or closed by the wrong closer, a bad indentation)
// no longer hides the errors before and after it (issue 18, item 33).
func TestEveryErrorInOrder(t *testing.T) {
	for _, tt := range []struct{ code, want string }{
		{"let a = = 1\nlet b = [1, 2\nlet c = 3\nif x\n  y\nlet d = 1 +\nreturn c",
			"1:9 syntax/expected|2:9 syntax/unclosed|4:5 syntax/missing-colon|6:12 syntax/expected"},
		{"let x = [1, 2}\nlet y = = 2", "1:14 syntax/bracket|2:9 syntax/expected"},
		{"if a:\n    x = 1\n  y = = 2\nlet z = {\n  k: 1\n", "3:3 syntax/indent|3:7 syntax/expected|4:9 syntax/unclosed"},
		// an object whose lines start with words like statements is not
		// taken for an unclosed bracket
		{"let o = {\n  if: 1,\n  return: 2\n}\nlet p = = 1", "5:9 syntax/expected"},
	} {
		_, errs := ParseString("t.prose", tt.code)
		var got []string
		for _, d := range errs {
			got = append(got, fmt.Sprintf("%d:%d %s", d.Line, d.Col, d.Code))
		}
		if g := strings.Join(got, "|"); g != tt.want {
			t.Errorf("code:\n%s\ngot  %s\nwant %s\n%s", tt.code, g, tt.want, errs)
		}
	}
}

// Forms of other languages get the ProseScript to write: a call with
// parentheses, a method, len(), a var declaration.
func TestOtherLanguagesForms(t *testing.T) {
	for _, c := range []struct{ code, want string }{
		{"let r = helper(topic)\nreturn r", "t.md:1:15: error: helper(...) is no call in ProseScript: write call helper, then its arguments on indented key: value lines below it"},
		{"return r.text.upper()", "t.md:1:20: error: a value has no methods: .upper(...) is not ProseScript"},
		{"return len(xs)", "t.md:1:11: error: there is no len(...): the length of a list or a text is X.length"},
		{"var n = 1\nreturn n", "t.md:1:1: error: 'var' is no keyword: a name is bound with let n = VALUE"},
		{"let r = helper (topic)", "t.md:1:16: error: unexpected '(' after the let statement"},
	} {
		_, errs := ParseString("t.md", c.code)
		if len(errs) == 0 || !strings.Contains(errs[0].String(), c.want) {
			t.Errorf("%q: got %v, want %q", c.code, errs, c.want)
		}
	}
}

// A condition in the claim form `X matches /RE/` is natural text whose
// pattern may hold brackets, + and |: they are no operators there.
func TestMatchesPatternCondition(t *testing.T) {
	for _, re := range []string{"/^[a-z]+$/", "/^[^@]+@[^@]+$/", "`^(a|b)+$`", "/@/"} {
		code := "if email matches " + re + ":\n  return 1\nreturn 2"
		prog, errs := ParseString("t.md", code)
		if len(errs) > 0 {
			t.Errorf("%s: %v", re, errs)
			continue
		}
		n, ok := prog.Body[0].(*IfStmt).Cond.(*NaturalCond)
		if !ok || n.Text != "email matches "+re {
			t.Errorf("%s: condition %#v", re, prog.Body[0].(*IfStmt).Cond)
		}
	}
}
