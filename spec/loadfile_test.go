package spec

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
)

func TestLoadUnreadable(t *testing.T) {
	dir := t.TempDir()
	locked := filepath.Join(dir, "locked.prose.md")
	if err := os.WriteFile(locked, []byte("---\n"), 0o000); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, path string
		is         error
	}{
		{"missing", filepath.Join(dir, "nope.prose.md"), fs.ErrNotExist},
		{"directory", dir, nil},
		{"permission", locked, fs.ErrPermission},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.is == fs.ErrPermission && os.Geteuid() == 0 {
				t.Skip("root reads any file")
			}
			s, diags, err := Load(tt.path)
			if err == nil || s != nil || diags != nil {
				t.Fatalf("got %v, %v, %v; want only an error", s, diags, err)
			}
			if !strings.Contains(err.Error(), tt.path) {
				t.Errorf("error %q does not name the path", err)
			}
			if tt.is != nil && !errors.Is(err, tt.is) {
				t.Errorf("error %v is not %v", err, tt.is)
			}
		})
	}
}

func TestLoadContentProblemsAreDiagnostics(t *testing.T) {
	dir := t.TempDir()
	files := map[string][]byte{
		"huge.prose.md":   append([]byte("---\nname: huge\nkind: pattern\n---\n"), make([]byte, MaxSize)...),
		"binary.prose.md": {0xff, 0xfe, 0x00, 0x01, '\n', 0x80},
		"empty.prose.md":  {},
		"nofm.prose.md":   []byte("# Title\n\ntext\n"),
		"fence.prose.md":  []byte(minimal(okSlots, "", "```prose\nlet x = 1\n")),
	}
	want := map[string]string{
		"huge.prose.md": CodeTooLarge, "binary.prose.md": CodeNotUTF8, "empty.prose.md": CodeEmpty,
		"nofm.prose.md": CodeNoFrontMatter, "fence.prose.md": CodeUnterminatedFence,
	}
	for name, src := range files {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, src, 0o644); err != nil {
			t.Fatal(err)
		}
		s, diags, err := Load(path)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		checkPositions(t, s, diags)
		found := false
		for _, d := range diags {
			found = found || d.Code == want[name] && d.Severity == 1 && d.File == path
		}
		if !found {
			t.Errorf("%s: want an error %s naming the file, got:\n%s", name, want[name], diags)
		}
	}
}

func TestLoadFS(t *testing.T) {
	src, err := os.ReadFile(testdata(t, "ratchet.prose.md"))
	if err != nil {
		t.Fatal(err)
	}
	fsys := fstest.MapFS{"lib/ratchet.prose.md": {Data: src}, "lib/dir": {Mode: fs.ModeDir}}
	s, diags, err := LoadFS(fsys, "lib/ratchet.prose.md")
	if err != nil || len(diags) != 0 || s.Name != "ratchet" || s.File.Name != "lib/ratchet.prose.md" {
		t.Errorf("LoadFS: %v %v %v", s, diags, err)
	}
	if _, _, err := LoadFS(fsys, "lib/dir"); err == nil {
		t.Error("LoadFS of a directory: no error")
	}
	if _, _, err := LoadFS(fsys, "lib/none.prose.md"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("LoadFS of a missing file: %v", err)
	}
}

func ExampleParse() {
	src := "---\nname: echo\nkind: pattern\n---\n\n# Echo\n\nSay it back.\n\n" +
		"### Slots\n\n- `speaker` (primary)\n\n" +
		"### Config\n\n- `times` (integer, default: 2): How often\n\n" +
		"### Delegation\n\n```prose\nlet said = repeat times:\n  call speaker\nreturn { result: said }\n```\n"
	s, diags := Parse("echo.prose.md", []byte(src))
	fmt.Println(s.Name, s.Slots[0].Name, s.Slots[0].Primary, s.Config[0].Default, s.Outputs[0].Name, s.Outputs[0].Inferred)
	fmt.Println(s.File.Position(s.Delegation.Lines[0].Off))
	fmt.Println(len(diags), "diagnostics")
	// Output:
	// echo speaker true 2 result true
	// echo.prose.md:21:1
	// 0 diagnostics
}
