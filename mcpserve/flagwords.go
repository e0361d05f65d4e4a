package mcpserve

import "regexp"

// The library words how a run was asked for as the command line does
// (`--input NAME=VALUE`, `--slot NAME`): a run tool's caller gives them
// as the members of its inputs, slots and config objects instead, so the
// usage errors of a run the tools start are worded for those (decided:
// only the flag spellings are rewritten, the sentence is the library's).

var flagWords = []struct {
	re   *regexp.Regexp
	with string
}{
	{regexp.MustCompile(`add --input ([^\s=]+)=VALUE \(or --input-json\)`), `give it in inputs, as {"$1": VALUE}`},
	{regexp.MustCompile(`--input-json ([^\s:]+):`), `inputs.$1:`},
	{regexp.MustCompile(`--input ([^\s=]+)=([^\s,;)]+)`), `inputs {"$1": $2}`},
	{regexp.MustCompile(`--slot ([^\s=]+)=([^\s,;)]+)`), `slots {"$1": "$2"}`},
	{regexp.MustCompile(`--config ([^\s=]+)=([^\s,;)]+)`), `config {"$1": $2}`},
	{regexp.MustCompile(`--input ([^\s:=]+):`), `inputs.$1:`},
	{regexp.MustCompile(`--slot ([^\s:=]+):`), `slots.$1:`},
	{regexp.MustCompile(`--config ([^\s:=]+):`), `config.$1:`},
	{regexp.MustCompile(`--input-json\b`), `inputs`},
	{regexp.MustCompile(`--input\b`), `inputs`},
	{regexp.MustCompile(`--slot\b`), `slots`},
	{regexp.MustCompile(`--config\b`), `config`},
}

// inToolWords is err, the error of a run that did not start (how it
// was asked for), worded for the run tool's arguments.
func inToolWords(err error) error {
	if err == nil {
		return nil
	}
	msg := err.Error()
	for _, w := range flagWords {
		msg = w.re.ReplaceAllString(msg, w.with)
	}
	return &toolUsageError{msg: msg, err: err}
}

// toolUsageError is a usage error reworded for a tool's caller; it
// unwraps to the library's.
type toolUsageError struct {
	msg string
	err error
}

func (e *toolUsageError) Error() string { return e.msg }
func (e *toolUsageError) Unwrap() error { return e.err }
