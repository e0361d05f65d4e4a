package run

import (
	"reflect"
	"strings"
	"testing"

	"github.com/proselang/prose/journal"
	"github.com/proselang/prose/redact"
)

func TestRedactInputJSON(t *testing.T) {
	red := redact.ForEnv([]string{"MY_TOKEN=envsecret-12345678"}).WithShapes()
	cases := []struct {
		in, leak string
		want     []string
		redacted []string
	}{
		{in: `{"a": 1, "b": "x"}`, want: []string{`--input-json={"a": 1, "b": "x"}`}},
		{in: `{"a": 1, "password": "hunter2hunter2"}`, leak: "hunter2",
			want: []string{`--input-json={"a":1}`, "--input=password=[redacted]"}, redacted: []string{"input password"}},
		{in: `{"cfg": {"list": [{"client_secret": "abcdefgh123"}]}}`, leak: "abcdefgh123",
			want: []string{"--input=cfg=[redacted]"}, redacted: []string{"input cfg"}},
		{in: `{"note": "uses envsecret-12345678 today"}`, leak: "envsecret",
			want: []string{"--input=note=[redacted]"}, redacted: []string{"input note"}},
		{in: `["sk-abcdefghijklmnopqrstuvwx"]`, leak: "sk-abcdef",
			want: []string{"--input-json=[redacted]"}, redacted: []string{"input-json"}},
	}
	for _, c := range cases {
		var h journal.Header
		js, withheld := redactInputJSON(red, &h, c.in)
		var got []string // in the words of the command line
		if js != "" {
			got = append(got, "--input-json="+js)
		}
		for _, w := range withheld {
			got = append(got, "--input="+w.Name+"="+w.Value)
		}
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: argv %q, want %q", c.in, got, c.want)
		}
		if !reflect.DeepEqual(h.Redacted, c.redacted) {
			t.Errorf("%s: redacted %q, want %q", c.in, h.Redacted, c.redacted)
		}
		all := strings.Join(got, " ")
		for _, kv := range h.Inputs {
			all += " " + kv.Value
		}
		if c.leak != "" && strings.Contains(all, c.leak) {
			t.Errorf("%s: journaled %q", c.in, all)
		}
	}
}
