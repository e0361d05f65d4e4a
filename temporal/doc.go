// Package temporal runs specs on a Temporal cluster: the Delegation
// as a workflow, each service call and model judgment as an activity, the
// branches of parallel loops and races as workflow coroutines. The local
// engine (package runhost, the journal) stays the default; this one is
// for fleets of workers, long runs and runs that must survive the loss of
// a machine.
//
// Engine is the run.Engine of this package: the same run.Request a local
// run takes, started (Start) or run to its end (Run) on a cluster.
//
// What travels. Resolve turns what a user asked for (a spec path,
// bindings, limits) into a Request: the source text of every spec the run
// reads (the top one and each nested spec) with its digest, the bindings as
// written, the limits and the model settings. The Request is the
// workflow's input, so a worker on another machine runs exactly what was
// started; it never reads a spec from its own disk.
//
// Where things run. The workflow (one per run) assembles its run with
// run.Prepare, as a local run is assembled (the same checks, bindings,
// limits and host, and the same Totals in its Result), as a
// Deterministic run: it loads the specs from the Request and reads
// nothing of the worker's disk, environment or clock, and runs the
// evaluator (run.Run's RunHere) under the workflow's context with a Host
// whose Runtime is the workflow's: workflow.Go for branches, workflow timers for backoff and
// timeouts, workflow time for Now, and the default hashed jitter (a pure
// function of the call path). Nested specs run inside the same workflow.
// Programs (`exec:`) and model slots (`llm`) run in activities on whatever
// worker picks them up, with that worker's environment and files;
// conditions that need a model are judged in activities too, and their
// verdicts are cached in the workflow's state by (condition, values).
//
// Identity. A call's activity id is its stable path (CallRequest.Path, its Key) for
// the first attempt and "PATH#N" for attempt N, the same names the journal
// uses; a judgment's is "judge:" and its path.
//
// Retries, timeouts, backoff. The evaluator keeps its own retry loop: each
// attempt of a `call` is one activity, `backoff` delays are workflow timers
// and jitter is drawn from the call path, so a replayed workflow waits the
// same. A service's failure comes back as a non-retryable activity error
// and the evaluator decides (next attempt, `on_fail use`, or abort). The
// activity's own Temporal retry policy is reserved for the loss of a
// worker: an attempt whose worker dies (its heartbeat stops) is started
// again on another worker under the same attempt number; an attempt that
// completed is never run again, since its result is in the history. A
// `timeout` is enforced where the call runs: the activity puts it on the
// service's context (a program gets SIGTERM, then SIGKILL after the grace
// period, as locally) and reports it as a timeout, which the evaluator
// does not retry; a workflow timer backs it up for a worker that vanished.
//
// Missing programs. A worker that cannot find the program an exec binding
// names fails the attempt with a non-retryable error naming the program and
// the binding; the workflow then ends with that error, since no retry or
// fallback of the spec could fix a worker's installation.
//
// Cancellation. Cancelling the workflow cancels the running activities;
// the activity's context is cancelled once its heartbeat learns of it and
// the program is stopped as on Ctrl-C locally.
//
// Limits. What crosses the cluster is bounded by the server's limits, not
// only by the run's: a call's arguments and value travel as activity
// payloads (2 MB each by default), and a run's history grows by about six
// events a sequential call, so a run of more than about 8,000 calls meets
// the default history limit (51,200 events); such runs belong on the
// local engine or need splitting.
//
// What the cluster stores. Every payload (the Request, call arguments and
// values, verdicts, the result) and every failure message is encrypted
// with the user's key before it leaves the process (codec.go), so the
// server's history holds no secret of a binding or an input; Dial sets
// this up, and every starter and worker of a task queue needs the same
// key file.
//
// Contract Markdown. A function or responsibility runs as a pattern does.
// Resolve records every file its calls reach on the starter (sibling
// files by stem or front-matter name, NAME/index.prose.md, pattern files
// of ### Patterns instances, std/ specs), each marked File when it was
// read from a file of that name. The workflow resolves calls with a
// spec.Finder over the File sources (bind.Env.Finder), so a worker
// finds the callee the starter found, whatever its own disk holds; the
// directory listing it sees holds only the carried files, which is
// enough, since every file a call resolved to on the starter was carried.
// A node rendered by a model is a call activity of kind "render" naming
// its file and node; the worker renders it with Activities.Render.
package temporal
