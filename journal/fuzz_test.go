package journal

import (
	"bytes"
	"strings"
	"testing"
)

// FuzzRead: any bytes give a Log or an error, never a panic; a Log's Size
// is a prefix of the input that ends a line.
func FuzzRead(f *testing.F) {
	f.Add([]byte(`{"t":"header","v":1,"run":"x","spec":"s","spec_sha256":"d"}` + "\n" +
		`{"t":"start","id":"L3","attempt":1}` + "\n" + `{"t":"end","id":"L3","attempt":1,"result":1}` + "\n"))
	f.Add([]byte(`{"t":"header","v":1}` + "\n" + `{"t":"end","id":"L3","res`))
	f.Add([]byte("\n\n"))
	f.Add(sealedJournal(`{"t":"header","v":2,"run":"x","request":{"spec":"s.prose.md"}}`,
		`{"t":"start","id":"L3","attempt":1}`, `{"t":"end","id":"L3","attempt":1,"result":1}`,
		`{"t":"final","status":"ok","result":1}`))
	f.Add(sealedJournal(`{"$blobs":[[62,"`+strings.Repeat("ab", 32)+`"]],"t":"header","v":5,"run":"x","request":{"spec":"s","v":"$blob"}}`,
		`{"$blobs":[[44,"`+strings.Repeat("0", 64)+`"]],"t":"end","id":"L3","attempt":1,"result":"$blob"}`))
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
		l.Request()
	})
}

// sealedJournal is the journal of the given lines, each sealed with its
// chained sum as the writer does.
func sealedJournal(lines ...string) []byte {
	var b bytes.Buffer
	last := ""
	for _, l := range lines {
		last = chainSum(nil, last, []byte(l))
		b.Write(sealLine([]byte(l), last))
	}
	return b.Bytes()
}

// A sealed journal reads back; one changed byte in any record is refused.
func TestSealedJournalReads(t *testing.T) {
	data := sealedJournal(`{"t":"header","v":2,"run":"x"}`, `{"t":"end","id":"L3","attempt":1,"result":1}`)
	if _, err := Read(bytes.NewReader(data)); err != nil {
		t.Fatal(err)
	}
	bad := bytes.Replace(data, []byte(`"result":1`), []byte(`"result":2`), 1)
	if _, err := Read(bytes.NewReader(bad)); err == nil {
		t.Error("a changed result was read")
	}
}
