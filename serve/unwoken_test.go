package serve

import (
	"context"
	"strings"
	"testing"
)

// A wake by hand of a gateway that has had no event does nothing, and
// its drain's outcome says so (a wake of it once it has a truth does
// not).
func TestWakeOfGatewayWithoutEvent(t *testing.T) {
	s, outcomes := feedServer(t, "")
	for _, ev := range [][]byte{nil, []byte(`{"id":"a"}`), nil} {
		if _, _, err := s.Trigger("feed", ev); err != nil {
			t.Fatal(err)
		}
		if err := s.DrainQueued(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	if len(*outcomes) != 3 {
		t.Fatalf("%d outcomes, want 3", len(*outcomes))
	}
	if why := (*outcomes)[0].Unwoken["feed"]; !strings.Contains(why, "feed is a gateway that has had no event") {
		t.Errorf("first wake: unwoken %q, want feed named", (*outcomes)[0].Unwoken)
	}
	if u := (*outcomes)[2].Unwoken; u != nil {
		t.Errorf("wake after an event: unwoken %q, want none", u)
	}
}
