package claim_test

import (
	"context"
	"fmt"

	"github.com/proselang/prose/claim"
	"github.com/proselang/prose/delegation"
)

func ExampleDecide() {
	v, _ := delegation.FromJSON([]byte(`["write the changelog", "tag the release"]`))
	for _, c := range []string{"has 2 items", "contains \"tag the release\"", "every item matches /^[a-z ]+$/", "is in a sensible order"} {
		r, ok := claim.Decide(context.Background(), claim.Question{Path: "result", Claim: c, Value: v})
		if !ok {
			fmt.Printf("%s: for the model\n", c)
			continue
		}
		fmt.Printf("%s: %v (%s)\n", c, r.Holds, r.Rule)
	}
	// Output:
	// has 2 items: true (count)
	// contains "tag the release": true (contains)
	// every item matches /^[a-z ]+$/: true (every)
	// is in a sensible order: for the model
}
