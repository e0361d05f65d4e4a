package check_test

import (
	"testing"
)

func TestCheckChoice(t *testing.T) {
	cases := []checkCase{
		{name: "clean", slots: "retryer", inputs: "failure", outputs: "out",
			code: "choice best recovery path for failure:\n  option \"retry\":\n    let r = call retryer\n    return { out: r }\n  option \"abort\":\n    throw \"no\"\n"},
		{name: "duplicate label is an error", inputs: "failure", outputs: "out",
			code: "choice best path for failure:\n  option \"retry\":\n    return { out: 1 }\n  option \"retry\":\n    return { out: 2 }\n",
			want: []string{"4:10 error check/choice option \"retry\" is given twice in this choice (line 2)"}},
		{name: "labels alike but for case warn", inputs: "failure", outputs: "out",
			code: "choice best path for failure:\n  option \"Retry\":\n    return { out: 1 }\n  option \"retry \":\n    return { out: 2 }\n",
			want: []string{"4:10 warning check/choice option \"retry \" differs from option \"Retry\" (line 2) in case or spacing alone"}},
		{name: "blank label", inputs: "failure", outputs: "out",
			code: "choice best path for failure:\n  option \" \":\n    return { out: 1 }\n  option \"b\":\n    return { out: 2 }\n",
			want: []string{"2:10 error check/choice an option's label is blank"}},
		{name: "empty option warns", inputs: "failure", outputs: "out",
			code: "choice best path for failure:\n  option \"wait\":\n  option \"go\":\n    return { out: 2 }\nreturn { out: 1 }\n",
			want: []string{"2:3 warning check/choice option \"wait\" has no statements"}},
		{name: "one option warns", inputs: "failure", outputs: "out",
			code: "choice best path for failure:\n  option \"go\":\n    return { out: 2 }\nreturn { out: 1 }\n",
			want: []string{"1:1 warning check/choice a choice of one option always runs it"}},
		{name: "criteria naming nothing", outputs: "out",
			code: "choice best recovery path:\n  option \"a\":\n    return { out: 1 }\n  option \"b\":\n    return { out: 2 }\n",
			want: []string{"1:8 warning check/condition-no-names the criteria \"best recovery path\" of this choice mention no bound name"}},
		// the options are alternatives: a name bound in each is bound
		// after, and one bound in one only is checked as an if's is
		{name: "options bind like branches", inputs: "failure", outputs: "out",
			code: "choice best path for failure:\n  option \"a\":\n    let v = 1\n  option \"b\":\n    let v = 2\nreturn { out: v }\n"},
		{name: "names in options are checked", inputs: "failure", outputs: "out",
			code: "choice best path for failure:\n  option \"a\":\n    return { out: missing }\n  option \"b\":\n    return { out: 2 }\n",
			want: []string{"3:19 error check/undefined-name"}},
		{name: "break outside loop in an option", inputs: "failure", outputs: "out",
			code: "choice best path for failure:\n  option \"a\":\n    break\n  option \"b\":\n    return { out: 2 }\nreturn { out: 1 }\n",
			want: []string{"3:5 error check/branch-outside-loop"}},
	}
	runCheckCases(t, cases)
}
