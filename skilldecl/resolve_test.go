package skilldecl

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/proselang/prose/spec"
)

func write(t *testing.T, file, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func load(t *testing.T, skills string) *spec.Spec {
	t.Helper()
	src := "---\nname: n\nkind: function\n---\n\n### Skills\n\n" + skills + "\n### Returns\n\n- `r`: r\n"
	s, _ := spec.Parse("n.prose.md", []byte(src))
	return s
}

// The roots are searched in order, the first holding the SKILL.md wins;
// a namespaced name is looked up under its namespace only.
func TestResolveOrder(t *testing.T) {
	dir := t.TempDir()
	project, home := filepath.Join(dir, "proj"), filepath.Join(dir, "home")
	write(t, filepath.Join(project, "skills", "ds", "pdf", File), "project pdf")
	write(t, filepath.Join(home, ".claude", "skills", "ds", "pdf", File), "claude pdf")
	write(t, filepath.Join(home, ".agents", "skills", "ds", "xlsx", File), "agents xlsx")
	write(t, filepath.Join(home, ".codex", "skills", "flat", File), "codex flat")
	r := NewResolver(ProjectRoot(project), home)

	for _, c := range []struct{ decl, text, code string }{
		{"ds:pdf", "project pdf", ""},
		{"ds:xlsx", "agents xlsx", ""},
		{"flat", "codex flat", ""},
		{"other:flat", "", CodeUnresolved},
		{"ds:missing", "", CodeUnresolved},
	} {
		d, ok := parseItem("- " + c.decl + "\n")
		if !ok {
			t.Fatalf("%q: not read", c.decl)
		}
		s, code, msg := r.Resolve(d)
		if code != c.code {
			t.Errorf("%s: code %q (%s), want %q", c.decl, code, msg, c.code)
			continue
		}
		if code != "" {
			for _, root := range r.Roots {
				if !strings.Contains(msg, root.join(append(d.parts(), File)...)) {
					t.Errorf("%s: %q does not name %s", c.decl, msg, root.Dir)
				}
			}
			if c.decl == "other:flat" && !strings.Contains(msg, "declare `flat`") {
				t.Errorf("%s: %q does not point at the bare skill", c.decl, msg)
			}
			continue
		}
		text, err := s.Read()
		if err != nil || text != c.text {
			t.Errorf("%s: read %q, %v; want %q", c.decl, text, err, c.text)
		}
	}
}

// A SKILL.md of MaxSize is used, one byte more is refused, also when it
// grows after it was resolved; a directory in its place stops the search.
func TestResolveUnusable(t *testing.T) {
	dir := t.TempDir()
	home := filepath.Join(dir, "home")
	file := filepath.Join(dir, "skills", "big", File)
	write(t, file, strings.Repeat("x", MaxSize))
	write(t, filepath.Join(home, ".claude", "skills", "odd", File), "later")
	if err := os.MkdirAll(filepath.Join(dir, "skills", "odd", File), 0o755); err != nil {
		t.Fatal(err)
	}
	r := NewResolver(ProjectRoot(dir), home)
	big := Decl{Text: "big", Name: "big"}
	s, code, msg := r.Resolve(big)
	if code != "" {
		t.Fatalf("at MaxSize: %s %s", code, msg)
	}
	if text, err := s.Read(); err != nil || len(text) != MaxSize {
		t.Fatalf("read %d bytes, %v", len(text), err)
	}
	write(t, file, strings.Repeat("x", MaxSize+1))
	if _, err := s.Read(); err == nil || !strings.Contains(err.Error(), "over the 256 KiB") {
		t.Errorf("grown file read: %v", err)
	}
	if _, code, msg := r.Resolve(big); code != CodeUnusable || !strings.Contains(msg, "262145 bytes") {
		t.Errorf("over MaxSize: %s %s", code, msg)
	}
	if _, code, msg := r.Resolve(Decl{Text: "odd", Name: "odd"}); code != CodeUnusable || !strings.Contains(msg, "not a regular file") {
		t.Errorf("a directory SKILL.md: %s %s", code, msg)
	}
}

// The project's skills directory is the nearest one from the spec's
// directory up, not past the project root.
func TestProjectRoot(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "skills", "a", File), "outside")
	write(t, filepath.Join(dir, "repo", ".git"), "gitdir: x")
	if err := os.MkdirAll(filepath.Join(dir, "repo", "sub", "deep"), 0o755); err != nil {
		t.Fatal(err)
	}
	if got, want := ProjectRoot(filepath.Join(dir, "repo", "sub", "deep")).Dir, filepath.Join(dir, "repo", "skills"); got != want {
		t.Errorf("no skills up to the root: %s, want %s", got, want)
	}
	write(t, filepath.Join(dir, "repo", "sub", "skills", "a", File), "inside")
	if got, want := ProjectRoot(filepath.Join(dir, "repo", "sub", "deep")).Dir, filepath.Join(dir, "repo", "sub", "skills"); got != want {
		t.Errorf("nearest: %s, want %s", got, want)
	}
	fsys := fstest.MapFS{
		"skills/a/SKILL.md":     {Data: []byte("top")},
		"p/q/x.prose.md":        {Data: []byte("")},
		"r/.git":                {Data: []byte("")},
		"r/s/x.prose.md":        {Data: []byte("")},
		"p/skills/b/SKILL.md":   {Data: []byte("p")},
		"other/skills/c/README": {Data: []byte("")},
	}
	for dir, want := range map[string]string{"p/q": "p/skills", ".": "skills", "r/s": "r/skills", "other": "other/skills"} {
		if got := ProjectRootFS(fsys, dir).Dir; got != want {
			t.Errorf("ProjectRootFS(%s) = %s, want %s", dir, got, want)
		}
	}
}

// The forms a declaration takes, and the malformed ones.
func TestDeclared(t *testing.T) {
	s := load(t, "- ds:pdf\n- `ds:xlsx`: sheets\n- plain: what for\n- (none)\nSome prose.\n- a b\n- ns:\n- :x\n- a:b:c\n- ..\n- x/y\n")
	var got []string
	for _, d := range Declared(s) {
		code, _ := d.Problem()
		got = append(got, d.Namespace+"|"+d.Name+"|"+d.Desc+"|"+code+"|"+d.Position().String())
	}
	want := []string{
		"ds|pdf||" + "|n.prose.md:8:3",
		"ds|xlsx|sheets||n.prose.md:9:4",
		"|plain|what for||n.prose.md:10:3",
		"|a b||skill_invalid|n.prose.md:13:3",
		"ns|||skill_invalid|n.prose.md:14:3",
		"|x||skill_invalid|n.prose.md:15:3",
		"a|b:c||skill_invalid|n.prose.md:16:3",
		"|..||skill_invalid|n.prose.md:17:3",
		"|x/y||skill_invalid|n.prose.md:18:3",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// Load reads what a render is given, and refuses a SKILL.md over MaxSize
// naming the file, the declaration and the code.
func TestLoad(t *testing.T) {
	dir := t.TempDir()
	src := "---\nname: n\nkind: function\n---\n\n### Skills\n\n- ds:small\n- ds:big\n\n### Returns\n\n- `r`: r\n"
	write(t, filepath.Join(dir, "n.prose.md"), src)
	write(t, filepath.Join(dir, "skills", "ds", "small", File), "SMALL")
	write(t, filepath.Join(dir, "skills", "ds", "big", File), strings.Repeat("x", MaxSize+1))
	sp, _, err := spec.Load(filepath.Join(dir, "n.prose.md"))
	if err != nil {
		t.Fatal(err)
	}
	decls := ForRender(sp)
	got, err := Load(decls[:1], "")
	if err != nil || len(got) != 1 || got[0].Text != "SMALL" || got[0].Dir != filepath.Join(dir, "skills", "ds", "small") {
		t.Fatalf("Load(small) = %+v, %v", got, err)
	}
	_, err = Load(decls, "")
	if err == nil {
		t.Fatal("a SKILL.md over MaxSize was loaded")
	}
	for _, want := range []string{filepath.Join(dir, "skills", "ds", "big", File), "is 262145 bytes, over the 256 KiB", "(declared at " + filepath.Join(dir, "n.prose.md") + ":9:3) [skill_unusable]"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%v does not say %q", err, want)
		}
	}
}

// A relative file name is looked up in the run's directory first: its
// project skills are found from there.
func TestLoadRelative(t *testing.T) {
	dir := t.TempDir()
	src := "---\nname: n\nkind: function\n---\n\n### Skills\n\n- ds:small\n\n### Returns\n\n- `r`: r\n"
	write(t, filepath.Join(dir, "sub", "n.prose.md"), src)
	write(t, filepath.Join(dir, "sub", "skills", "ds", "small", File), "SMALL")
	sp, _ := spec.Parse(filepath.Join("sub", "n.prose.md"), []byte(src))
	got, err := Load(ForRender(sp), dir)
	if err != nil || len(got) != 1 || got[0].Text != "SMALL" {
		t.Fatalf("Load = %+v, %v", got, err)
	}
}
