package run

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/proselang/prose/bind"
	"github.com/proselang/prose/journal"
	"github.com/proselang/prose/redact"
	"github.com/proselang/prose/runhost"
)

// Request is what a run runs: the resolved request, as data. A journal
// keeps it (secrets withheld) in its header, and Resume and Replay rebuild
// the run from it, not from a command line.
type Request struct {
	// Spec is the spec's path as given: relative to Dir, absolute, or a
	// std/... name of the embedded library. Messages name it so.
	Spec string `json:"spec"`
	// Dir is the directory relative paths in bindings (exec programs,
	// nested specs) resolve against ("" is the current directory).
	Dir string `json:"dir,omitempty"`
	// Bindings are the slots, config and inputs as written (NAME=TEXT).
	Bindings bind.Settings `json:"bindings"`
	// Slots bind slots and callees to typed bindings (Exec, Func, Model,
	// Spec), after those in Bindings; the journal keeps them as
	// Bindings' text.
	Slots  []Slot `json:"-"`
	Limits Limits `json:"limits"`
	// Model and BaseURL choose the model (llm slots and natural-language
	// conditions); empty: from the environment (PROSE_MODEL,
	// OPENAI_BASE_URL). The API key is never part of a request.
	Model   string `json:"model,omitempty"`
	BaseURL string `json:"base_url,omitempty"`
	// MaxTurns bounds the model requests of each tool session (0:
	// llm.DefaultMaxTurns); MCPConfig is the MCP configuration file
	// (relative to Dir; "": .mcp.json at the project root).
	MaxTurns  int    `json:"max_turns,omitempty"`
	MCPConfig string `json:"mcp_config,omitempty"`
}

// Limits bound a run (zero fields: the defaults, runhost.DefaultMaxParallel
// and runhost.DefaultMaxSteps); it is the one limits type of every engine.
type Limits = runhost.Limits

// specFile is the spec's file on disk (Spec resolved against Dir), or ""
// when Spec names no file (a std/... name of the embedded library).
func (r Request) specFile() string {
	p := r.Spec
	if r.Dir != "" && !filepath.IsAbs(p) {
		p = filepath.Join(r.Dir, p)
	}
	if abs, err := filepath.Abs(p); err == nil && fileExists(abs) {
		return abs
	}
	return ""
}

// redacted is r as a journal keeps it: every value that looks like a
// secret (by its name or its text) replaced by redact.Mark, filed in
// the header's bindings, config and inputs lists and named in Redacted.
func (r Request) redacted(red *redact.Redactor, h *journal.Header) Request {
	out := r
	out.Bindings = bind.Settings{}
	withhold := func(kind string, in []bind.Assignment, dst *[]journal.KV) []bind.Assignment {
		var res []bind.Assignment
		for _, a := range in {
			kv := journalKV(red, a.Name, a.Value)
			*dst = append(*dst, kv)
			if kv.Redacted {
				h.Redacted = append(h.Redacted, kind+" "+a.Name)
			}
			res = append(res, bind.Assignment{Name: a.Name, Value: kv.Value})
		}
		return res
	}
	out.Bindings.Slots = withhold("slot", r.Bindings.Slots, &h.Bindings)
	out.Bindings.Config = withhold("config", r.Bindings.Config, &h.Config)
	out.Bindings.Inputs = withhold("input", r.Bindings.Inputs, &h.Inputs)
	out.Bindings.Absent = r.Bindings.Absent
	if r.Bindings.InputJSON != "" {
		js, withheld := redactInputJSON(red, h, r.Bindings.InputJSON)
		out.Bindings.InputJSON = js
		out.Bindings.Inputs = append(out.Bindings.Inputs, withheld...)
	}
	for _, f := range []struct {
		name string
		v    *string
	}{{"base-url", &out.BaseURL}, {"model", &out.Model}} {
		if _, changed := red.Text(*f.v); changed {
			*f.v = redact.Mark
			h.Redacted = append(h.Redacted, f.name)
		}
	}
	return out
}

// journalKV is the journaled form of key=value (see redact.Redactor.Value).
func journalKV(red *redact.Redactor, key, value string) journal.KV {
	shown, withheld := red.Value(key, value)
	return journal.KV{Key: key, Value: shown, Redacted: withheld}
}

// redactInputJSON is the journaled form of an --input-json value. An input
// whose name looks secret, or whose value holds a secret-looking key or
// text, is taken out of the object and journaled as an input NAME whose
// value is withheld, so that a resume asks for that input again by name;
// the other inputs stay in the object. Each input is listed in the
// header's inputs too.
func redactInputJSON(red *redact.Redactor, h *journal.Header, v string) (string, []bind.Assignment) {
	var obj map[string]json.RawMessage
	if err := json.Unmarshal([]byte(v), &obj); err != nil || obj == nil {
		// Not an object (the run refuses it): withhold it whole if it
		// looks secret.
		if _, changed := red.Text(v); changed || holdsSecretKey(json.RawMessage(v)) {
			h.Redacted = append(h.Redacted, "input-json")
			return redact.Mark, nil
		}
		return v, nil
	}
	keys := make([]string, 0, len(obj))
	for k := range obj {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	keep := map[string]json.RawMessage{}
	var withheld []bind.Assignment
	for _, k := range keys {
		text := string(obj[k])
		var str string
		if json.Unmarshal(obj[k], &str) == nil {
			text = str // as --input NAME=TEXT would say it
		}
		kv := journalKV(red, k, text)
		if !kv.Redacted && holdsSecretKey(obj[k]) {
			kv = journal.KV{Key: k, Value: redact.Mark, Redacted: true}
		}
		h.Inputs = append(h.Inputs, kv)
		if kv.Redacted {
			h.Redacted = append(h.Redacted, "input "+k)
			withheld = append(withheld, bind.Assignment{Name: k, Value: redact.Mark})
			continue
		}
		keep[k] = obj[k]
	}
	if len(withheld) == 0 {
		return v, nil
	}
	if len(keep) == 0 {
		return "", withheld
	}
	b, err := json.Marshal(keep)
	if err != nil {
		h.Redacted = append(h.Redacted, "input-json")
		return redact.Mark, nil
	}
	return string(b), withheld
}

// holdsSecretKey reports whether the JSON value raw has, at any depth, an
// object key that looks like it names a secret.
func holdsSecretKey(raw json.RawMessage) bool {
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return false
	}
	var walk func(any) bool
	walk = func(v any) bool {
		switch v := v.(type) {
		case map[string]any:
			for k, e := range v {
				if redact.SecretName(k) || walk(e) {
					return true
				}
			}
		case []any:
			for _, e := range v {
				if walk(e) {
					return true
				}
			}
		}
		return false
	}
	return walk(v)
}

// Overrides are values given again to a resume or a replay: each slot,
// config key or input named replaces every journaled value of that name (a
// list slot is given again whole); InputJSON, Model and BaseURL, when set,
// replace the journaled ones.
type Overrides struct {
	Bindings bind.Settings
	Model    string
	BaseURL  string
}

// apply returns r with o's values in place of the journaled ones. Names
// the run did not set go first, in sorted order, so the same resume
// journals the same request.
func (o Overrides) apply(r Request) Request {
	merge := func(journaled, given []bind.Assignment) []bind.Assignment {
		repl := map[string][]bind.Assignment{}
		for _, a := range given {
			repl[a.Name] = append(repl[a.Name], a)
		}
		var out []bind.Assignment
		done := map[string]bool{}
		for _, a := range journaled {
			if nv, ok := repl[a.Name]; ok {
				if !done[a.Name] {
					out = append(out, nv...)
					done[a.Name] = true
				}
				continue
			}
			out = append(out, a)
		}
		var names []string
		for n := range repl {
			if !done[n] {
				names = append(names, n)
			}
		}
		sort.Strings(names)
		var added []bind.Assignment
		for _, n := range names {
			added = append(added, repl[n]...)
		}
		return append(added, out...)
	}
	r.Bindings.Slots = merge(r.Bindings.Slots, o.Bindings.Slots)
	r.Bindings.Config = merge(r.Bindings.Config, o.Bindings.Config)
	r.Bindings.Inputs = merge(r.Bindings.Inputs, o.Bindings.Inputs)
	if o.Bindings.InputJSON != "" {
		r.Bindings.InputJSON = o.Bindings.InputJSON
	}
	if o.Model != "" {
		r.Model = o.Model
	}
	if o.BaseURL != "" {
		r.BaseURL = o.BaseURL
	}
	return r
}

// withheld lists the request's values still withheld from the journal
// ("slot advancer", "input-json", "model").
func (r Request) withheld() []string {
	var out []string
	for _, l := range []struct {
		kind string
		as   []bind.Assignment
	}{{"slot", r.Bindings.Slots}, {"config", r.Bindings.Config}, {"input", r.Bindings.Inputs}} {
		for _, a := range l.as {
			if a.Value == redact.Mark {
				out = append(out, l.kind+" "+a.Name)
			}
		}
	}
	if r.Bindings.InputJSON == redact.Mark {
		out = append(out, "input-json")
	}
	if r.BaseURL == redact.Mark {
		out = append(out, "base-url")
	}
	if r.Model == redact.Mark {
		out = append(out, "model")
	}
	return out
}

// flagHint is how to give a withheld value again on the command line
// ("--slot advancer=...").
func flagHint(name string) string {
	kind, key, ok := strings.Cut(name, " ")
	if !ok {
		return "--" + name + "=..."
	}
	return fmt.Sprintf("--%s %s=...", kind, key)
}

// validText is r with the bytes of its config and input values that are
// not UTF-8 (a Latin-1 file name given as --input) replaced by U+FFFD.
// Values are text, and a journal keeps them as JSON, which cannot hold
// such bytes: a run must use the value its resume and replay will read
// back, or their arguments would differ from the journal's. Slot bindings
// are left as given: a command line may name a file by its bytes.
func (r Request) validText() Request {
	fix := func(in []bind.Assignment) []bind.Assignment {
		var out []bind.Assignment
		for i, a := range in {
			if utf8.ValidString(a.Value) {
				continue
			}
			if out == nil {
				out = append([]bind.Assignment(nil), in...)
			}
			out[i].Value = strings.ToValidUTF8(a.Value, "\uFFFD")
		}
		if out == nil {
			return in
		}
		return out
	}
	r.Bindings.Config = fix(r.Bindings.Config)
	r.Bindings.Inputs = fix(r.Bindings.Inputs)
	return r
}

// inputSecrets are the run's secret-named inputs, NAME=VALUE (see
// redact.InputSecrets), and the secrets written inline in its exec:
// bindings (redact.CommandSecrets): both are withheld as the
// environment's secrets are.
func (r Request) inputSecrets() []string {
	var kvs []string
	for _, a := range r.Bindings.Inputs {
		// Only a secret-named input is one (InputSecrets keeps no other):
		// the others are not copied into NAME=VALUE, which for a 5 MB
		// input cost a copy of it at each of the run's redactors.
		if a.Value != "" && redact.SecretName(a.Name) {
			kvs = append(kvs, a.Name+"="+a.Value)
		}
	}
	out := redact.InputSecrets(kvs, r.Bindings.InputJSON)
	for _, a := range r.Bindings.Slots {
		out = append(out, redact.CommandSecrets(a.Value)...)
	}
	for _, s := range r.Slots {
		if e, ok := s.Binding.(Exec); ok {
			out = append(out, redact.CommandSecrets(e.Command)...)
		}
	}
	return out
}

// vaultEnv is the environment the journal's vault of secrets knows: the
// run's (nil: the process's) and its secret-named inputs.
func (r Request) vaultEnv(environ []string) []string {
	in := r.inputSecrets()
	if len(in) == 0 {
		return environ
	}
	if environ == nil {
		environ = os.Environ()
	}
	out := append([]string(nil), environ...)
	for _, kv := range in {
		// The vault names a secret [secret $NAME], NAME an identifier.
		name, val, _ := strings.Cut(kv, "=")
		out = append(out, strings.ReplaceAll(name, "-", "_")+"="+val)
	}
	return out
}
