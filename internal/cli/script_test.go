package cli

import (
	"errors"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/proselang/prose/journal"
	"github.com/proselang/prose/llm/llmtest"

	"github.com/proselang/prose/internal/testenv"
)

var updateScripts = flag.Bool("update-scripts", false, "rewrite the cmp targets of testdata/script/*.txtar with the actual output")

// TestMain lets the scripts run `prose` as a command, served in-process
// by Main.
func TestMain(m *testing.M) {
	// The tests' journals are sealed with a key of their own, never the
	// user's (the commands they start inherit it).
	if os.Getenv(journal.KeyFileEnv) == "" {
		if dir, err := os.MkdirTemp("", "prose-test-key-"); err == nil {
			os.Setenv(journal.KeyFileEnv, filepath.Join(dir, "journal.key"))
		}
	}
	if os.Getenv(envTemporalKeyFile) == "" {
		if dir, err := os.MkdirTemp("", "prose-test-key-"); err == nil {
			os.Setenv(envTemporalKeyFile, filepath.Join(dir, "temporal.key"))
		}
	}
	testscript.Main(m, map[string]func(){
		"prose": func() { os.Exit(Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) },
	})
}

// TestScripts runs every testdata/script/*.txtar file of the repository.
// Scripts see $CORPUS, the real-world spec corpus when present (the
// condition [corpus] tells whether it is), and $ROOT, the module root.
func TestScripts(t *testing.T) {
	root := testenv.MustRoot(t)
	corpus := filepath.Join(root, "..", "shared", "corpus", "openprose-0.11", "patterns")
	_, err := os.Stat(corpus)
	haveCorpus := err == nil
	testscript.Run(t, testscript.Params{
		Dir:           filepath.Join(root, "testdata", "script"),
		UpdateScripts: *updateScripts,
		Setup: func(env *testscript.Env) error {
			env.Setenv("ROOT", root)
			// Journals are sealed with a key of the script's own, not one
			// under the (absent) home directory.
			env.Setenv(journal.KeyFileEnv, filepath.Join(env.WorkDir, ".journal.key"))
			env.Setenv("CORPUS", corpus)
			return nil
		},
		Condition: func(cond string) (bool, error) {
			switch cond {
			case "corpus":
				return haveCorpus, nil
			}
			return false, &scriptCondError{cond}
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"status":        cmdStatus,
			"openai-server": llmtest.ScriptServer,
		},
	})
}

// cmdStatus is the script command `status CODE PROGRAM [ARGS...]`: it
// runs PROGRAM like exec and fails unless it exits with CODE. stdout and
// stderr are kept for the commands that follow.
func cmdStatus(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: status CODE PROGRAM [ARGS...]")
	}
	want, err := strconv.Atoi(args[0])
	ts.Check(err)
	got := 0
	if err := ts.Exec(args[1], args[2:]...); err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			ts.Fatalf("%s: %v", args[1], err)
		}
		got = ee.ExitCode()
	}
	if got != want {
		ts.Fatalf("%s exited with status %d, want %d", args[1], got, want)
	}
}

type scriptCondError struct{ cond string }

func (e *scriptCondError) Error() string { return "unknown condition " + e.cond }
