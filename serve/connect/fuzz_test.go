package connect_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/proselang/prose/serve/connect"
	"github.com/proselang/prose/world/graph"
)

// FuzzReadConfig: any prose.serve.yaml reads without a panic, and every
// connector it accepts names a gateway and one source.
func FuzzReadConfig(f *testing.F) {
	f.Add("connectors:\n  feed:\n    file: inbox\n    id_field: id\n")
	f.Add("connectors:\n  feed:\n    http: http://127.0.0.1:1/x?c={cursor}\n    every: 5s\n")
	f.Add("connectors:\n  feed: [1, 2]\nother: 1\n")
	g, _, err := graph.Load("../testdata/redeliver")
	if err != nil {
		f.Fatal(err)
	}
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, src string) {
		if err := os.WriteFile(filepath.Join(dir, connect.FileName), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		cs, _, err := connect.ReadConfig(dir, g)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range cs {
			if c.Gateway != "feed" || c.Kind == "" || c.Every <= 0 {
				t.Errorf("accepted %+v from %q", c, src)
			}
		}
	})
}
