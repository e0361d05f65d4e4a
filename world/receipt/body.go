package receipt

import (
	"bytes"
	"encoding/json"
	"fmt"
	"unicode/utf8"

	"github.com/proselang/prose/world/canon"
)

// body is the canonical JSON the hash covers: the receipt without Hash,
// Sig and Key. It is written directly, member by member in canonical
// order (a store opened anew checks the hash of every receipt its index
// holds, so this is on the path of every process); a receipt holding
// text that is not valid UTF-8 takes the generic path, which spells such
// bytes as encoding/json does. TestBodyIsTheGenericCanonicalForm and
// FuzzBody hold the two to the same bytes.
func (r *Receipt) body() ([]byte, error) {
	if !r.validUTF8() {
		return r.bodyGeneric()
	}
	var b bytes.Buffer
	b.Grow(512)
	str := func(name, s string) {
		b.WriteString(name)
		canon.WriteString(&b, s)
	}
	wide := false // an integer beyond 2^53: the generic path says which
	num := func(name string, n int64) {
		b.WriteString(name)
		wide = wide || n > 1<<53 || n < -(1<<53)
		canon.WriteInt(&b, n)
	}
	str(`{"contract":`, r.Contract)
	b.WriteString(`,"cost":{`)
	c := r.Cost
	sep := ""
	if r.Format == legacy { // hashed in 1.0 only, and always written there
		num(`"duration_ms":`, c.DurationMS)
		sep = ","
	}
	if c.Model != "" {
		str(sep+`"model":`, c.Model)
		sep = ","
	}
	num(sep+`"programs":`, int64(c.Programs))
	num(`,"requests":`, int64(c.Requests))
	num(`,"tokens_in":`, int64(c.TokensIn))
	num(`,"tokens_out":`, int64(c.TokensOut))
	b.WriteString(`},"diff":{"fields":`)
	writeStrings(&b, r.Diff.Fields)
	b.WriteString(`,"moved":`)
	writeStrings(&b, r.Diff.Moved)
	num(`},"drain":`, int64(r.Drain))
	if r.Events != "" {
		str(`,"events":`, r.Events)
	}
	b.WriteString(`,"facets":`)
	writeMap(&b, r.Facets)
	str(`,"format":`, r.Format)
	b.WriteString(`,"inputs":`)
	writeMap(&b, r.Inputs)
	str(`,"memo":`, r.Memo)
	str(`,"node":`, r.Node)
	str(`,"prev":`, r.Prev)
	if r.Reason != "" {
		str(`,"reason":`, r.Reason)
	}
	if r.Run != "" {
		str(`,"run":`, r.Run)
	}
	num(`,"seq":`, int64(r.Seq))
	str(`,"status":`, string(r.Status))
	str(`,"version":`, r.Version)
	b.WriteString(`,"wake":{"refs":`)
	writeStrings(&b, r.Wake.Refs)
	str(`,"source":`, r.Wake.Source)
	b.WriteString(`}}`)
	if wide {
		return r.bodyGeneric()
	}
	return b.Bytes(), nil
}

// bodyGeneric is body by way of encoding/json and a canonical re-encoding
// of what it wrote.
func (r *Receipt) bodyGeneric() ([]byte, error) {
	c := r.content()
	c.Hash, c.Sig, c.Key = "", "", ""
	raw, err := json.Marshal(c)
	if err != nil {
		return nil, err
	}
	v, err := canon.Decode(raw)
	if err != nil {
		return nil, err
	}
	m := v.(map[string]any)
	delete(m, "hash")
	if cost, ok := m["cost"].(map[string]any); ok && r.Format == legacy {
		cost["duration_ms"] = json.Number(fmt.Sprint(r.Cost.DurationMS)) // 1.0 always wrote it
	}
	return canon.Marshal(m)
}

// validUTF8 reports whether every text the body holds is valid UTF-8.
func (r *Receipt) validUTF8() bool {
	for _, s := range [...]string{r.Format, r.Node, r.Contract, r.Wake.Source, r.Events, r.Memo, r.Version, r.Prev, string(r.Status), r.Reason, r.Cost.Model, r.Run} {
		if !utf8.ValidString(s) {
			return false
		}
	}
	for _, l := range [...][]string{r.Wake.Refs, r.Diff.Moved, r.Diff.Fields} {
		for _, s := range l {
			if !utf8.ValidString(s) {
				return false
			}
		}
	}
	for _, m := range [...]map[string]string{r.Inputs, r.Facets} {
		for k, v := range m {
			if !utf8.ValidString(k) || !utf8.ValidString(v) {
				return false
			}
		}
	}
	return true
}

// writeStrings writes a list of texts (null for a nil one, as
// encoding/json does).
func writeStrings(b *bytes.Buffer, l []string) {
	if l == nil {
		b.WriteString("null")
		return
	}
	b.WriteByte('[')
	for i, s := range l {
		if i > 0 {
			b.WriteByte(',')
		}
		canon.WriteString(b, s)
	}
	b.WriteByte(']')
}

// writeMap writes an object of texts, its members in canonical order
// (null for a nil one, as encoding/json does).
func writeMap(b *bytes.Buffer, m map[string]string) {
	if m == nil {
		b.WriteString("null")
		return
	}
	names := make([]string, 0, len(m))
	for k := range m {
		names = append(names, k)
	}
	canon.SortNames(names)
	b.WriteByte('{')
	for i, k := range names {
		if i > 0 {
			b.WriteByte(',')
		}
		canon.WriteString(b, k)
		b.WriteByte(':')
		canon.WriteString(b, m[k])
	}
	b.WriteByte('}')
}
