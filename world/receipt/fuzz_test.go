package receipt

import "testing"

// FuzzParse: a ledger line is a receipt or an error, and a parsed one
// checks or says why not.
func FuzzParse(f *testing.F) {
	r := &Receipt{Node: "n", Status: Rendered}
	r.Seal(nil)
	line, _ := r.Marshal()
	f.Add(line)
	f.Add([]byte(`{"format":"9.0"}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := Parse(b)
		if err != nil {
			return
		}
		_ = r.Check(nil)
	})
}
