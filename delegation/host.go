package delegation

import (
	"context"
	"time"

	"github.com/proselang/prose/delegation/syntax"
	"github.com/proselang/prose/diag"
)

// The evaluator reaches the world only through the interfaces in this file,
// passed in a Host. It never starts goroutines, reads the clock, sleeps or
// draws random numbers itself: it asks the Runtime. That keeps a run
// deterministic given its inputs and the results of its calls, which the
// journal (resume, replay) relies on.

// Host bundles the hooks of one run.
type Host struct {
	Caller   Caller
	Judge    Judge
	Recorder Recorder // may be nil
	Runtime  Runtime  // nil means DefaultRuntime
	// Gates answers `ask_user` and `gate` (gate.go); nil: a gate fails.
	Gates Gater
	// MaxSteps bounds the statements executed (0 means 100000).
	MaxSteps int
	// MaxParallel bounds concurrent iterations of parallel loops and
	// branches (0 means 8).
	MaxParallel int
	// MaxValueBytes is the size ceiling of a value written out as compact
	// JSON, shared parts counted each time (0 means DefaultMaxValueBytes).
	MaxValueBytes int64
	// Scope is put in front of every call, judgment and loop path of
	// this run: zero for a top-level run; for a nested run (a service
	// that runs another spec) the NestedScope of the call attempt that
	// started it, so that a path names its place in the whole tree of
	// runs.
	Scope Path
}

// CallRequest is one attempt of one `call`.
type CallRequest struct {
	// Path is the stable call path, given by the evaluator as it runs
	// (see Path): the host's Scope, the call's line in the .md file and
	// the enclosing loop iterations. Journals, traces and model clients
	// key on it (with Attempt) and nothing else.
	Path    Path
	Service Service
	// Args are the named arguments, in written order. The evaluator
	// freezes them (Freeze): they never change and may be shared with
	// other calls, so a service must not change them (the methods that
	// would, panic on a frozen value).
	Args    *Object
	Attempt int // 1-based attempt number
	Pos     diag.Position
	// Timeout is the call's `timeout` clause (0: none). The evaluator also
	// puts it on ctx as a deadline; a service that runs a program uses it to
	// stop the program in time.
	Timeout time.Duration
	// Host is the host of the run making the call. A service that runs a
	// nested spec runs it with a copy whose Scope is NestedScope(), so the
	// nested run shares the hooks and limits of the run it belongs to.
	Host *Host
	// Exchanged, when set, receives what a service that asks a model sent
	// and got back for this attempt: the trace records it beside the call
	// (the journal does not).
	Exchanged func(Exchange)
	// Spawned, when set, is told of each process group a service starts
	// for this attempt, once the program runs: its id and an identity of
	// its leader that tells it from a later group with the same id. The
	// journal records it, so that a resume after prose was killed can end
	// what the killed run left running.
	Spawned func(pgid int, ident string)
}

// Exchange is one request a service made to a model and its reply.
type Exchange struct {
	Model          string // the model that answered (the reply's)
	System, Prompt string
	Reply          string
	TokensIn       int
	TokensOut      int
	// RequestModel is the model asked for; FinishReason the server's
	// finish_reason ("stop", "length"); Duration how long the request
	// took, retries included.
	RequestModel string
	FinishReason string
	Duration     time.Duration
	// ResponseID is the id the server gave its reply ("" when none, or no
	// reply). Temperature and MaxTokens are what the request sent: nil
	// when it sent no temperature, 0 when it sent no output cap.
	// OutputType is "json" when the request asked for a JSON reply (a
	// schema), else "text".
	ResponseID  string
	Temperature *float64
	MaxTokens   int
	OutputType  string
	// Err is set when the request got no usable reply (Reply is empty).
	Err error
}

// NestedScope is the Scope of a nested run that this attempt starts: the
// path of the attempt (Path.Try), which the paths of that run's calls
// have as their Parent.
func (r *CallRequest) NestedScope() Path { return r.Path.Try(r.Attempt) }

// Caller performs one attempt of a call. An error means the attempt threw
// (retryable); a context error after ctx's deadline means it timed out.
type Caller interface {
	Call(ctx context.Context, req *CallRequest) (Value, error)
}

// Judgment asks whether a natural-language condition holds.
type Judgment struct {
	// Path is the stable path of this evaluation: like CallRequest.Path,
	// with the condition's line.
	Path Path
	Cond *syntax.NaturalCond
	Pos  diag.Position
	// Values holds the value of every bound name path the condition
	// mentions, keyed by the path as written ("verdict", "attempt.result"),
	// in order of first mention. For a `says` condition it includes the
	// criterion and the subject even when null.
	Values *Object
	// FailClosed is set when the condition guards a side effect: if the
	// judge cannot tell, the answer must be the one that does not proceed.
	FailClosed bool
	// Options, set for a `choice`, are the labels of its options in
	// written order: the judge picks exactly one of them (Verdict.Pick)
	// by the criteria, Cond (whose Text is the criteria and whose Values
	// are gathered as a condition's are), instead of telling whether Cond
	// holds. No deterministic rule reads a choice.
	Options []string
}

// IsChoice reports whether j asks for a pick among options rather than
// whether a condition holds.
func (j *Judgment) IsChoice() bool { return len(j.Options) > 0 }

// Verdict is a judge's answer.
type Verdict struct {
	Holds bool
	// Pick is, for a choice (Judgment.Options), the label of the option
	// picked: exactly one of the options, or the evaluator refuses it.
	Pick      string
	Reasoning string
	// Asked is true when a model was asked (not cached, not deterministic).
	Asked     bool
	Cached    bool
	Model     string
	TokensIn  int
	TokensOut int
	// Rule names the deterministic rule that decided, when no model was
	// asked: "says-null-criterion", "structured-verdict", ...
	Rule string
	// When a model was asked: ResponseID is the id the server gave the
	// reply that decided ("" when none); Temperature and MaxTokens are
	// what the request sent (nil when it sent no temperature, 0 when it
	// sent no output cap), as in Exchange.
	ResponseID  string
	Temperature *float64
	MaxTokens   int
}

// Judge decides natural-language conditions, and picks the option of a
// `choice` (Judgment.Options).
type Judge interface {
	Judge(ctx context.Context, j *Judgment) (Verdict, error)
}

// EventKind names what an Event records. Its spelling is the trace's and
// the journal's (see journal/FORMAT.md), so it never changes for a kind.
type EventKind string

// Event kinds.
const (
	EventCallStart EventKind = "call.start" // a call attempt starts
	EventCallModel EventKind = "call.model" // a model exchange of a call attempt
	EventCallEnd   EventKind = "call.end"   // a call attempt ended (Err when it failed)
	EventJudgment  EventKind = "judgment"   // a natural-language condition was decided
	EventError     EventKind = "error"      // a run-time error was raised (Err is its *Error)
)

// String returns the kind's spelling ("call.end").
func (k EventKind) String() string { return string(k) }

// Event is one trace record; fields not relevant to its Kind are zero.
type Event struct {
	Kind     EventKind
	Time     time.Time
	Path     Path // of the call, judgment or error
	Pos      diag.Position
	Slot     string // service name
	Attempt  int
	Args     *Object
	Result   Value
	Err      error
	Duration time.Duration
	// Judgment events
	Condition string
	Verdict   *Verdict
	// EventCallModel events: a model exchange of a call attempt.
	Exchange *Exchange
}

// Recorder receives events as they happen. It must be safe for concurrent
// use and must not block for long.
type Recorder interface {
	Record(ev *Event)
}

// Runtime is the evaluator's access to concurrency, time and randomness.
type Runtime interface {
	// Group runs a parallel loop or parallel statement: fn(ctx, i) for i
	// in [0,n), at most limit at once, by the join's one rule (RunGroup):
	// the first iteration that wins or fails decides the group and cancels
	// the others. It waits for every iteration it started and says how the
	// group ended, including which iterations ended after the decision
	// (their appends are dropped). id is the stable path of the loop or
	// statement: a journal records the outcome under it, and a replay or a
	// resume answers the group from that record. decided, when not nil, is
	// called once with the outcome at the decision, before the others are
	// canceled (RunGroup).
	Group(ctx context.Context, id Path, n, limit int, fn func(ctx context.Context, i int) (won bool, err error), decided func(GroupOutcome)) GroupOutcome
	// Now is the current time (for trace durations).
	Now() time.Time
	// Sleep waits d or until ctx is done.
	Sleep(ctx context.Context, d time.Duration) error
	// Jitter returns a reproducible number in [0,1) for the given seed
	// (the evaluator passes a call's path and attempt).
	Jitter(seed string) float64
}

// SafeHolds is the answer that does not proceed, for a FailClosed judgment:
// true (stop) for a negated guard such as `decision does not explicitly
// proceed`, false (do not commit) for a positive one such as `verdict
// certifies the proposal`. See semantics.md.
func (j *Judgment) SafeHolds() bool { return j.Cond != nil && j.Cond.Negated }

// NotRetriedError is an attempt's error that another attempt would repeat:
// the call's arguments do not fit what its slot requires, and every
// attempt sends the same arguments. A call stops at it without using its
// remaining retries (its on_fail still applies).
type NotRetriedError struct{ Err error }

func (e *NotRetriedError) Error() string { return e.Err.Error() }
func (e *NotRetriedError) Unwrap() error { return e.Err }

// NotRetried marks err as an attempt's error that no retry would change.
func NotRetried(err error) error { return &NotRetriedError{Err: err} }
