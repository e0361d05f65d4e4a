package journal

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/proselang/prose/delegation"
	"github.com/proselang/prose/redact"
)

// expandArgs rebuilds a trace's call arguments: a list written as
// {"$extends": NAME, "$append": [...]} is the list of that name (seen
// earlier in the trace) followed by the new elements. A list written in
// full is named by the sha256 of its JSON, an extension by the sha256 of
// the name it extends, a newline and the JSON of what it appends.
func expandArgs(t *testing.T, raw json.RawMessage, seen map[string][]json.RawMessage) string {
	var args map[string]json.RawMessage
	var keys []string
	dec := json.NewDecoder(bytes.NewReader(raw))
	if _, err := dec.Token(); err != nil {
		t.Fatal(err)
	}
	args = map[string]json.RawMessage{}
	for dec.More() {
		k, _ := dec.Token()
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			t.Fatal(err)
		}
		keys = append(keys, k.(string))
		args[k.(string)] = v
	}
	var out bytes.Buffer
	out.WriteByte('{')
	for i, k := range keys {
		v := args[k]
		var ext struct {
			Extends string            `json:"$extends"`
			Append  []json.RawMessage `json:"$append"`
		}
		var elems []json.RawMessage
		if json.Unmarshal(v, &ext) == nil && ext.Extends != "" {
			base, ok := seen[ext.Extends]
			if !ok {
				t.Fatalf("$extends %s: no such list earlier in the trace", ext.Extends)
			}
			elems = append(append(elems, base...), ext.Append...)
			added, _ := json.Marshal(ext.Append)
			h := sha256.New()
			h.Write([]byte(ext.Extends + "\n"))
			h.Write(compact(t, added))
			seen["sha256:"+hex.EncodeToString(h.Sum(nil))] = elems
			v, _ = json.Marshal(elems)
		} else if bytes.HasPrefix(v, []byte("[")) {
			if err := json.Unmarshal(v, &elems); err != nil {
				t.Fatal(err)
			}
			sum := sha256.Sum256(compact(t, v))
			seen["sha256:"+hex.EncodeToString(sum[:])] = elems
		}
		if i > 0 {
			out.WriteByte(',')
		}
		kb, _ := json.Marshal(k)
		out.Write(kb)
		out.WriteByte(':')
		out.Write(compact(t, v))
	}
	out.WriteByte('}')
	return out.String()
}

func compact(t *testing.T, b []byte) []byte {
	var c bytes.Buffer
	if err := json.Compact(&c, b); err != nil {
		t.Fatal(err)
	}
	return c.Bytes()
}

// A growing list argument is written once and then as extensions: the
// trace of a 2,000-step ratchet grows linearly with the steps (the last
// 200 steps take about as many bytes as the first 200), and every
// call's arguments are rebuilt exactly from it.
func TestTraceSizeLinearInSteps(t *testing.T) {
	var buf bytes.Buffer
	tw := NewTrace(&buf, redact.New().WithShapes())
	progress := delegation.NewList()
	var want []string
	var half int
	const steps = 400
	for i := range steps {
		args := delegation.NewObject()
		args.Set("task_brief", "count")
		snap := delegation.NewList(progress.Elems()...)
		args.Set("certified_progress", snap)
		js, _ := delegation.ToJSON(args)
		want = append(want, string(js))
		tw.Record(&delegation.Event{Kind: "call.start", Time: time.Unix(0, 0), Path: delegation.MustParsePath(fmt.Sprintf("L9/%d", i+1)), Slot: "advancer", Attempt: 1, Args: args})
		progress.Append(fmt.Sprintf("step %d: a certified increment of the work", i+1))
		if i == steps/2-1 {
			half = buf.Len()
		}
	}
	if second := buf.Len() - half; float64(second) > 1.25*float64(half) {
		t.Errorf("trace bytes: first %d steps %d, next %d: not linear", steps/2, half, second)
	}
	if buf.Len() > steps*700 {
		t.Errorf("trace of %d steps is %d bytes: want about 500 a step", steps, buf.Len())
	}
	seen := map[string][]json.RawMessage{}
	sc := bufio.NewScanner(&buf)
	sc.Buffer(nil, 1<<26)
	n := 0
	for sc.Scan() {
		var line struct {
			Args json.RawMessage `json:"args_value"`
		}
		if err := json.Unmarshal(sc.Bytes(), &line); err != nil {
			t.Fatal(err)
		}
		if got := expandArgs(t, line.Args, seen); got != want[n] {
			t.Fatalf("call %d: args rebuilt as\n%s\nwant\n%s", n+1, got, want[n])
		}
		n++
	}
	if n != steps {
		t.Errorf("%d call lines, want %d", n, steps)
	}
}

// BenchmarkTraceBytes is the size of the start records of ratchets
// of 200 and 2,000 steps, per step (a step's proposal call gets the task
// and the certified progress so far, growing by one 45-byte step a step):
// constant when the trace is linear in the steps.
//
//	go test ./journal -run '^$' -bench TraceBytes -benchtime 1x
func BenchmarkTraceBytes(b *testing.B) {
	for _, steps := range []int{200, 2000} {
		b.Run(fmt.Sprint(steps), func(b *testing.B) {
			var n int
			for range b.N {
				var buf bytes.Buffer
				tw := NewTrace(&buf, redact.New().WithShapes())
				progress := delegation.NewList()
				for i := range steps {
					args := delegation.NewObject()
					args.Set("task_brief", "count")
					args.Set("certified_progress", delegation.NewList(progress.Elems()...))
					tw.Record(&delegation.Event{Kind: "call.start", Time: time.Unix(0, 0), Path: delegation.MustParsePath(fmt.Sprintf("L9/%d", i+1)), Slot: "advancer", Attempt: 1, Args: args})
					progress.Append(fmt.Sprintf("step %d: a certified increment of the work", i+1))
				}
				n = buf.Len()
			}
			b.ReportMetric(float64(n)/float64(steps), "bytes/step")
		})
	}
}
