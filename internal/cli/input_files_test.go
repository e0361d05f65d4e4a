package cli

import (
	"io"
	"runtime"
	"strings"
	"testing"
)

// A file read as an input's value is read into room made once, from the
// size its stat gave: the garbage of reading it is about the file, not
// three times it (a slice grown by doubling, then copied into a string).
func TestInputFileIsReadIntoRoomMadeOnce(t *testing.T) {
	text := strings.Repeat("a line of the topic, with \"quotes\" and a tab\t.\n", 1<<20/48)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	got, err := readCapped("--input topic", "topic.txt", strings.NewReader(text), int64(len(text)))
	runtime.ReadMemStats(&after)
	if err != nil || got != text {
		t.Fatalf("read %d bytes, %v; want the %d bytes of the file", len(got), err, len(text))
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > uint64(len(text))*5/4 {
		t.Errorf("reading %d bytes allocated %d", len(text), alloc)
	}
}

// The size a stat gave is a hint: a file that grew or shrank since is read
// to its end, and the ceiling holds whatever the hint said.
func TestInputFileSizeIsAHint(t *testing.T) {
	text := strings.Repeat("x", 10000)
	for _, hint := range []int64{0, 10, 9999, 10000, 10001, 1 << 20} {
		got, err := readCapped("--input a", "a.txt", strings.NewReader(text), hint)
		if err != nil || got != text {
			t.Errorf("hint %d: read %d bytes, %v; want %d", hint, len(got), err, len(text))
		}
	}
	big := io.LimitReader(zeros{}, maxInputFile+2)
	if _, err := readCapped("--input a", "a.txt", big, 10); err == nil || !strings.Contains(err.Error(), "larger than 64 MiB") {
		t.Errorf("a file past the ceiling: %v; want it refused", err)
	}
}

type zeros struct{}

func (zeros) Read(p []byte) (int, error) {
	clear(p)
	return len(p), nil
}
