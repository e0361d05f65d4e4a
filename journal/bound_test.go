package journal

import (
	"os"
	"strings"
	"testing"
)

// What one record may cost is bounded: a whole line longer than the bound
// is refused without being held; a longer last line without its newline
// is a torn write, skipped.
func TestRecordBound(t *testing.T) {
	hdr := `{"t":"header","v":1,"run":"20260101T000000-aaaaaa"}` + "\n"
	long := `{"t":"end","id":"L1","attempt":1,"result":"` + strings.Repeat("x", 4096) + `"}`
	_, err := readLog(strings.NewReader(hdr+long+"\n"+`{"t":"final","status":"ok"}`+"\n"), &Log{}, 1024)
	if err == nil || !strings.Contains(err.Error(), "line 2: a record of more than 1024 bytes") {
		t.Errorf("an overlong record: %v", err)
	}
	l, err := readLog(strings.NewReader(hdr+long), &Log{}, 1024)
	if err != nil || !l.Torn || len(l.Records) != 0 || l.Size != int64(len(hdr)) {
		t.Errorf("an overlong torn tail: %+v, %v", l, err)
	}
	if l, err := readLog(strings.NewReader(hdr+long+"\n"), &Log{}, 8192); err != nil || len(l.Records) != 1 {
		t.Errorf("a record within the bound: %v", err)
	}
}

// A resume cuts a torn tail off and continues the chain; what was past the
// last newline is never read.
func TestResumeCutsALongTornTail(t *testing.T) {
	base := t.TempDir()
	path, id := writeOneCallRun(t, base)
	st, _ := os.Stat(path)
	f, _ := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(`{"t":"end","id":"L2","attempt":1,"result":"` + strings.Repeat("x", 3<<20))
	f.Close()
	r, err := Resume(base, id, Options{})
	if err != nil {
		t.Fatal(err)
	}
	r.Close()
	l, err := ReadFile(path)
	if err != nil || l.Torn || l.Size <= st.Size() || l.Size > st.Size()+4096 {
		t.Fatalf("after the resume: %v, size %d (was %d)", err, l.Size, st.Size())
	}
}
