package testrun

import (
	"os"
	"path/filepath"
	"testing"
)

// An exec fixture's relative paths mean what they mean to `prose run`
// started in the test's directory: the program bin/tool and the script
// of sh fake.sh are found beside the test, not in its scratch directory;
// words that may not be paths stay as written.
func TestExecFixturePathsFromTheTestDirectory(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{"fake.sh", "tool.py", "hello"} {
		if err := os.WriteFile(filepath.Join(dir, f), nil, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	c := &Case{Dir: dir}
	at := func(p string) string { return filepath.Join(dir, p) }
	for _, tc := range []struct{ in, want string }{
		{"exec:./fake.sh", "exec:" + at("fake.sh")},
		{"exec:bin/tool --x 1", "exec:" + at("bin/tool") + " --x 1"},
		{"exec:  bin/tool", "exec:  " + at("bin/tool")},
		{"exec:sh fake.sh 'a b'", "exec:sh " + at("fake.sh") + " 'a b'"},
		{"exec:python3 tool.py", "exec:python3 " + at("tool.py")},
		{"exec:/usr/bin/python3 tool.py", "exec:/usr/bin/python3 " + at("tool.py")},
		{"exec:sh ./fake.sh", "exec:sh " + at("fake.sh")},
		// left as written
		{"exec:sh missing.sh", "exec:sh missing.sh"},
		{"exec:sh -c 'cat fake.sh'", "exec:sh -c 'cat fake.sh'"},
		{"exec:echo hello", "exec:echo hello"},
		{"exec:fake.sh", "exec:fake.sh"},
		{"exec:/bin/cat fake.sh", "exec:/bin/cat fake.sh"},
		{"exec:X=1 bin/tool", "exec:X=1 bin/tool"},
		{"exec:$HOME/bin/tool", "exec:$HOME/bin/tool"},
	} {
		if got := c.absBinding(tc.in); got != tc.want {
			t.Errorf("%q: got %q, want %q", tc.in, got, tc.want)
		}
	}
}
