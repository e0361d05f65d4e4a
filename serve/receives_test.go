package serve

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"
)

// An event that does not fit the object the gateway's ### Receives
// declares is refused where it arrives, naming the key and the line, and
// nothing is queued; one that fits, or carries more keys, is queued.
func TestTriggerChecksTheReceivedShape(t *testing.T) {
	s, _, dir := lastEventServer(t, "counter.prose.md", "---\nname: counter-events\nkind: gateway\n---\n\n# Counter Events\n\n### Receives\n\n- A counter event: `{ id, kind, value, material? }`.\n\n### Maintains\n\n- `total`: the sum\n")
	for _, tc := range []struct{ event, want string }{
		{`{"id": "e1", "kind": "click", "amount": 3}`, `the event lacks "value", of { id, kind, value, material? } (counter-events's ### Receives, counter.prose.md:10:21): give it, or mark it optional there (` + "`value?`)"},
		{`{"id": "e1", "kind": "click", "value": 3, "materal": false}`, `the event has "materal", which is no key of { id, kind, value, material? } (counter-events's ### Receives, counter.prose.md:10:21); did you mean "material"?`},
		{`[{"id": "e1"}]`, `the event is a list, not an object of { id, kind, value, material? } (counter-events's ### Receives, counter.prose.md:10:21): send a JSON object`},
	} {
		_, _, err := s.Trigger("counter-events", []byte(tc.event))
		if !errors.Is(err, ErrEventShape) || !errors.Is(err, ErrBadEvent) || !strings.Contains(strings.ReplaceAll(err.Error(), dir+string(filepath.Separator), ""), tc.want) {
			t.Errorf("trigger %s: %v\nwant: %s", tc.event, err, tc.want)
		}
	}
	if d := s.Depth(); d != 0 {
		t.Errorf("%d refused events queued", d)
	}
	for _, ev := range []string{`{"id": "e1", "kind": "click", "value": 3}`, `{"id": "e2", "kind": "view", "value": 1, "material": false, "note": "more"}`} {
		if _, _, err := s.Trigger("counter-events", []byte(ev)); err != nil {
			t.Errorf("trigger %s: %v", ev, err)
		}
	}
}
