package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/proselang/prose/internal/handoff"
	"github.com/proselang/prose/run"
)

// The Temporal engine (prose run --engine temporal, serve --engine
// temporal, answer --engine temporal, worker, result and temporal
// codec-server) is linked only into the program prose-temporal
// (cmd/prose-temporal, which gives Run the engine; see
// internal/temporalport). Its client, worker and the Temporal API's
// protobuf registrations cost every command that links them several
// milliseconds and megabytes at start, whether it uses them or not, which
// is most of what a lint on every save costs. The program prose hands
// those commands, whole, to prose-temporal (installed beside it by the
// same go install ./cmd/...): found beside the running executable, else
// on PATH. Nothing is
// read or checked before the hand-off, so that both programs behave the
// same whichever one a user starts. On Unix prose becomes prose-temporal
// (execTemporal, first thing in main): its signals, exit status and death
// are then the command's own. Elsewhere, and for Main called in process,
// handOff runs it as a child with prose's standard files and exit status.

// temporalProgram is the name of the prose built with the Temporal engine.
const temporalProgram = "prose-temporal"

// Environment variables that give the connection flags (temporal.Conn's
// fields; the temporal package defines the same names, which a test
// holds to).
const (
	envTemporalAddress   = "PROSE_TEMPORAL_ADDRESS"
	envTemporalNamespace = "PROSE_TEMPORAL_NAMESPACE"
	envTemporalTaskQueue = "PROSE_TEMPORAL_TASK_QUEUE"
	envTemporalKeyFile   = "PROSE_TEMPORAL_KEY_FILE"
	defaultTaskQueue     = "prose"
)

// connFlags are --temporal-address, --namespace and --task-queue as given
// (the environment fills the rest; see temporalConn).
type connFlags struct {
	Address, Namespace, TaskQueue string
}

// temporalFlags are the connection flags every Temporal-facing command
// takes, and the engine choice of `prose run`.
type temporalFlags struct {
	engine     string
	conn       connFlags
	detach     bool
	workflowID string
	attach     bool
}

// addConnFlags adds --temporal-address, --namespace and --task-queue.
func addConnFlags(cmd *cobra.Command, c *connFlags) {
	fl := cmd.Flags()
	fl.StringVar(&c.Address, "temporal-address", "", "Temporal frontend `HOST:PORT` (default $"+envTemporalAddress+")")
	fl.StringVar(&c.Namespace, "namespace", "", "Temporal `NAMESPACE` (default $"+envTemporalNamespace+", else default)")
	fl.StringVar(&c.TaskQueue, "task-queue", "", "Temporal task `QUEUE` of the workers (default $"+envTemporalTaskQueue+", else "+defaultTaskQueue+")")
}

// addTemporalFlags adds the engine flags to `prose run`.
func addTemporalFlags(cmd *cobra.Command) *temporalFlags {
	t := &temporalFlags{}
	fl := cmd.Flags()
	fl.StringVar(&t.engine, "engine", "local", "run on the `ENGINE` local (this process) or temporal (workers of a Temporal cluster)")
	addConnFlags(cmd, &t.conn)
	fl.BoolVar(&t.detach, "detach", false, "with --engine temporal: print the run's workflow id and return; prose result ID waits for it")
	fl.StringVar(&t.workflowID, "workflow-id", "", "with --engine temporal: the workflow `ID` of the run (default: one the server makes); a running workflow of that id is refused (exit 2) unless --attach")
	fl.BoolVar(&t.attach, "attach", false, "with --workflow-id: when that workflow is running, wait for its result instead of refusing")
	return t
}

// pick is the engine --engine names: run.Local, or the Temporal engine on
// the connection of the flags and the environment. A bad --engine, a
// Temporal-only flag without it, or a local-only flag with it is a usage
// error.
func (t *temporalFlags) pick(cmd *cobra.Command) (run.Engine, error) {
	switch t.engine {
	case "temporal":
		// The local engine's records have no meaning here: the run's
		// history is kept by Temporal. --no-journal is accepted (it is
		// what happens anyway).
		for _, name := range []string{"trace", "run-dir", "journal-sync"} {
			if cmd.Flags().Changed(name) {
				return nil, usageErrorf("--%s does not apply to --engine temporal: the run's history is kept by the Temporal cluster", name)
			}
		}
		if cmd.Flags().Changed("base-url") {
			return nil, usageErrorf("--base-url does not apply to --engine temporal: workers call the model server they are configured with (prose worker --base-url, or OPENAI_BASE_URL where they run)")
		}
		if t.attach && t.workflowID == "" {
			return nil, usageErrorf("--attach needs --workflow-id: it names the running workflow to wait for")
		}
		return t.temporalEngine()
	case "local", "":
		for _, name := range []string{"temporal-address", "namespace", "task-queue", "detach", "workflow-id", "attach"} {
			if cmd.Flags().Changed(name) {
				return nil, usageErrorf("--%s needs --engine temporal", name)
			}
		}
		return run.Local{}, nil
	}
	return nil, usageErrorf("--engine %q: use local or temporal", t.engine)
}

// cmdContext is the command's context (Ctrl-C cancels it), or a
// background one for a command run without Main.
func cmdContext(cmd *cobra.Command) context.Context {
	if ctx := cmd.Context(); ctx != nil {
		return ctx
	}
	return context.Background()
}

// temporalCommands are the commands that only the Temporal engine serves;
// engineCommands take --engine temporal.
var (
	temporalCommands = map[string]bool{"worker": true, "result": true, "temporal": true}
	engineCommands   = map[string]bool{"run": true, "serve": true, "answer": true}
)

// needsTemporal reports whether args (prose's, without the program name)
// name a command that needs the Temporal engine: worker, result or
// temporal, or run, serve or answer with --engine temporal.
func needsTemporal(args []string) bool {
	cmd := ""
	for i, a := range args {
		if a == "--" {
			break
		}
		if cmd == "" {
			if strings.HasPrefix(a, "-") {
				continue
			}
			cmd = a
			if temporalCommands[cmd] {
				return true
			}
			if !engineCommands[cmd] {
				return false
			}
			continue
		}
		if a == "--engine=temporal" || (a == "--engine" && i+1 < len(args) && args[i+1] == "temporal") {
			return true
		}
	}
	return false
}

// handedOffEnv marks the environment of the prose-temporal a prose
// started.
const handedOffEnv = "PROSE_HANDED_OFF"

// errNoTemporalProgram is the error of a hand-off that found no
// prose-temporal.
var errNoTemporalProgram = errors.New("no " + temporalProgram)

// findTemporalProgram is the path of prose-temporal: beside the running
// executable, else on PATH.
func findTemporalProgram() (string, error) {
	p, err := handoff.Find(temporalProgram)
	if err != nil {
		return "", errNoTemporalProgram
	}
	return p, nil
}

// handOff runs args with prose-temporal, its standard files those given,
// and returns its exit code. The first cancellation of ctx (Ctrl-C or
// SIGTERM) is passed on as an interrupt; a terminal's Ctrl-C reaches it
// directly too (the same process group), which it takes as one.
func handOff(ctx context.Context, args []string, in io.Reader, out, errw io.Writer) int {
	path, err := findTemporalProgram()
	if err != nil {
		fmt.Fprintf(errw, "prose: %s needs the Temporal engine, which this prose was built without; it hands such commands to %s, found neither beside %s nor on PATH.\n"+
			"Install it beside prose with: go install github.com/proselang/prose/cmd/...@latest\n"+
			"(or, in a checkout of prose: go install ./cmd/...; both install prose and %s)\n",
			handedOffCommand(args), temporalProgram, handoff.Dir(), temporalProgram)
		return exitFailure
	}
	if os.Getenv(handedOffEnv) != "" {
		// this prose is the one handed to: a prose-temporal built without
		// the engine, which would otherwise hand over to itself forever
		fmt.Fprintf(errw, "prose: %s needs the Temporal engine, and %s was built without it: install %s from github.com/proselang/prose/cmd/%s (go install ./cmd/... in a checkout of prose)\n", handedOffCommand(args), executablePath(), temporalProgram, temporalProgram)
		return exitFailure
	}
	return handoff.Run(ctx, path, args, []string{handedOffEnv + "=1"}, in, out, errw)
}

// handedOffCommand is "prose worker", "prose run --engine temporal"...: what
// args ask of the Temporal engine, for the message of a failed hand-off.
func handedOffCommand(args []string) string {
	for _, a := range args {
		if strings.HasPrefix(a, "-") {
			continue
		}
		if temporalCommands[a] {
			return "prose " + a
		}
		return "prose " + a + " --engine temporal"
	}
	return "prose"
}

func executablePath() string {
	exe, err := os.Executable()
	if err != nil {
		return temporalProgram
	}
	return exe
}
