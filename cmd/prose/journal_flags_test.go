package main

import (
	"reflect"
	"testing"
	"time"
)

func TestOverrideArgv(t *testing.T) {
	argv := []string{"--config=max_steps=4", "--slot=advancer=[redacted]", "--slot=c=exec:a", "--slot=c=exec:b", "spec.prose.md"}
	o := &rerunOptions{slots: []string{"advancer=exec:./adv.sh", "c=exec:z"}, inputs: []string{"task=x"}}
	got, err := overrideArgv(argv, o)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"--input=task=x", "--config=max_steps=4", "--slot=advancer=exec:./adv.sh", "--slot=c=exec:z", "spec.prose.md"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("overrideArgv:\n got %q\nwant %q", got, want)
	}
	if left := stillRedacted(argv); !reflect.DeepEqual(left, []string{"slot advancer"}) {
		t.Errorf("stillRedacted = %q", left)
	}
	if left := stillRedacted(got); len(left) != 0 {
		t.Errorf("stillRedacted after override = %q", left)
	}
	got, _ = overrideArgv([]string{"--input-json=[redacted]", "s.prose.md"}, &rerunOptions{inputJSON: `{"a":1}`})
	if want := []string{`--input-json={"a":1}`, "s.prose.md"}; !reflect.DeepEqual(got, want) {
		t.Errorf("--input-json override: %q", got)
	}
	// Several keys the run did not set come first in one fixed order.
	o = &rerunOptions{inputs: []string{"z=1", "a=2", "m=3"}, configs: []string{"k=4"}}
	want = []string{"--config=k=4", "--input=a=2", "--input=m=3", "--input=z=1", "s.prose.md"}
	for range 20 {
		if got, _ = overrideArgv([]string{"s.prose.md"}, o); !reflect.DeepEqual(got, want) {
			t.Fatalf("added keys: got %q, want %q", got, want)
		}
	}
	if _, err := overrideArgv(argv, &rerunOptions{configs: []string{"novalue"}}); err == nil {
		t.Errorf("an override without = was accepted")
	}
}

func TestParseAge(t *testing.T) {
	for in, want := range map[string]time.Duration{"30m": 30 * time.Minute, "7d": 7 * 24 * time.Hour, "1d12h": 36 * time.Hour} {
		if got, err := parseAge(in); err != nil || got != want {
			t.Errorf("parseAge(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "x", "-1d", "3w", "d"} {
		if _, err := parseAge(bad); err == nil {
			t.Errorf("parseAge(%q) accepted", bad)
		}
	}
}

func TestSyncWindow(t *testing.T) {
	if d, err := syncWindow("always"); err != nil || d != 0 {
		t.Errorf("always: %v %v", d, err)
	}
	if d, err := syncWindow("250ms"); err != nil || d != 250*time.Millisecond {
		t.Errorf("250ms: %v %v", d, err)
	}
	if _, err := syncWindow("soon"); err == nil {
		t.Errorf("soon accepted")
	}
}

// A journaled --base-url or --model given again replaces the journaled
// one (the password of a base URL is withheld from the journal).
func TestOverrideArgvPlainFlags(t *testing.T) {
	argv := []string{"--base-url=[redacted]", "--model=m1", "--slot=s=llm", "spec.prose.md"}
	got, err := overrideArgv(argv, &rerunOptions{baseURL: "https://me:pw@h/v1"})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"--base-url=https://me:pw@h/v1", "--model=m1", "--slot=s=llm", "spec.prose.md"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("overrideArgv:\n got %q\nwant %q", got, want)
	}
	if left := stillRedacted(got); len(left) != 0 {
		t.Errorf("stillRedacted = %q", left)
	}
	if left := stillRedacted(argv); !reflect.DeepEqual(left, []string{"base-url"}) {
		t.Errorf("stillRedacted of the journal = %q", left)
	}
}
