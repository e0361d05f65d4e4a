package main

import (
	"encoding/json"
	"sort"

	"github.com/proselang/prose/journal"
)

// journalInputJSON is the journaled form of an --input-json value. An
// input whose name looks secret, or whose value holds a secret-looking key
// or text, is taken out of the object and journaled as
// --input=NAME=[redacted], so that a resume asks for that input again by
// name; the other inputs stay in the object. Each input is also listed in
// the header's inputs.
func journalInputJSON(red *journal.Redactor, h *journal.Header, v string) []string {
	var obj map[string]json.RawMessage
	if err := json.Unmarshal([]byte(v), &obj); err != nil || obj == nil {
		// Not an object (the run refuses it): withhold it whole if it
		// looks secret.
		if _, changed := red.Text(v); changed || holdsSecretKey(json.RawMessage(v)) {
			h.Redacted = append(h.Redacted, "input-json")
			return []string{"--input-json=" + journal.Redacted}
		}
		return []string{"--input-json=" + v}
	}
	keys := make([]string, 0, len(obj))
	for k := range obj {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	keep := map[string]json.RawMessage{}
	var withheld []string
	for _, k := range keys {
		text := string(obj[k])
		var str string
		if json.Unmarshal(obj[k], &str) == nil {
			text = str // as --input NAME=TEXT would say it
		}
		kv := red.KV(k, text)
		if !kv.Redacted && holdsSecretKey(obj[k]) {
			kv = journal.KV{Key: k, Value: journal.Redacted, Redacted: true}
		}
		h.Inputs = append(h.Inputs, kv)
		if kv.Redacted {
			h.Redacted = append(h.Redacted, "input "+k)
			withheld = append(withheld, "--input="+k+"="+journal.Redacted)
			continue
		}
		keep[k] = obj[k]
	}
	if len(withheld) == 0 {
		return []string{"--input-json=" + v}
	}
	if len(keep) == 0 {
		return withheld
	}
	b, err := json.Marshal(keep)
	if err != nil {
		h.Redacted = append(h.Redacted, "input-json")
		return []string{"--input-json=" + journal.Redacted}
	}
	return append([]string{"--input-json=" + string(b)}, withheld...)
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
				if journal.IsSecretName(k) || walk(e) {
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
