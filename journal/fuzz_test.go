package journal

import (
	"bytes"
	"testing"
)

// FuzzRead: any bytes give a Log or an error, never a panic; a Log's Size
// is a prefix of the input that ends a line.
func FuzzRead(f *testing.F) {
	f.Add([]byte(`{"t":"header","v":1,"run":"x","spec":"s","spec_sha256":"d"}` + "\n" +
		`{"t":"start","id":"L3","attempt":1}` + "\n" + `{"t":"end","id":"L3","attempt":1,"result":1}` + "\n"))
	f.Add([]byte(`{"t":"header","v":1}` + "\n" + `{"t":"end","id":"L3","res`))
	f.Add([]byte("\n\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		l, err := Read(bytes.NewReader(data))
		if err != nil {
			return
		}
		if l.Size > int64(len(data)) || (l.Size > 0 && data[l.Size-1] != '\n') {
			t.Fatalf("Size %d does not end a line of %q", l.Size, data)
		}
		newIndex(l)
		l.Final()
		l.SpecDigest()
	})
}
