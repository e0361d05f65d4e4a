package cli

import (
	"reflect"
	"testing"

	"github.com/proselang/prose/journal"
)

// Two runs started in the same second share their first sixteen letters;
// a truncated id names the run it starts, not its neighbour too.
func TestNearIDsPrefersPart(t *testing.T) {
	runs := []*journal.Summary{{ID: "20261202T040039-38e453"}, {ID: "20261202T040039-c8e372"}}
	cases := []struct {
		id   string
		want []string
	}{
		{"20261202T040039-c8e3", []string{"20261202T040039-c8e372"}},
		{"c8e372", []string{"20261202T040039-c8e372"}},
		{"20261202T040039-38e45x", []string{"20261202T040039-38e453"}},
		{"20261202T040039-c8e453", []string{"20261202T040039-38e453", "20261202T040039-c8e372"}},
		{"nosuchrun", nil},
	}
	for _, c := range cases {
		if got := nearIDs(c.id, runs); !reflect.DeepEqual(got, c.want) {
			t.Errorf("nearIDs(%q) = %q, want %q", c.id, got, c.want)
		}
	}
}
