package procgroup

import (
	"encoding/binary"
	"slices"
	"strings"
	"testing"
)

// A start request reads back as it was written, and no bytes make the
// watchdog's reader panic or accept a request with bytes left over.
func FuzzDecodeStart(f *testing.F) {
	f.Add("/tmp", "/bin/sh", "-c\x00echo hi", "A=1\x00B=2", []byte{})
	f.Add("", "", "", "", []byte{msgStart, 1, 0, 0, 0, 0, 0, 0, 0, 200, 1})
	f.Fuzz(func(t *testing.T, dir, path, args, env string, raw []byte) {
		split := func(s string) []string {
			if s == "" {
				return []string{}
			}
			return strings.Split(s, "\x00")
		}
		msg := encodeStart(dir, path, split(args), split(env))
		binary.LittleEndian.PutUint64(msg[1:9], 7)
		r, err := decodeStart(msg)
		if err != nil || r.id != 7 || r.dir != dir || r.path != path || !slices.Equal(r.args, split(args)) || !slices.Equal(r.env, split(env)) {
			t.Fatalf("round trip: %+v, %v", r, err)
		}
		if _, err := decodeStart(append(msg, 0)); err == nil {
			t.Fatal("a request with a byte left over was read")
		}
		decodeStart(raw)
	})
}
