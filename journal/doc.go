// Package journal makes pattern runs durable: every call attempt, judgment
// and `parallel first` winner of a run is appended to a JSON-lines journal
// before the run depends on it, so a run killed at any moment can be
// resumed (completed calls are answered from the journal, the rest run
// live) and any run can be replayed with no service or model call at all.
//
// Layout. A run lives in its own directory, BASE/RUN_ID/journal.jsonl (BASE
// is usually .prose/runs). Run ids sort by start time
// (20261130T021500-ab12cd). The first line is the Header (format version,
// spec path and sha256 digest, the run's command line with secrets
// redacted, bindings, config, inputs); then one Record per line: "session"
// (a resume started), "end" after each call attempt (and "start" before it
// when it starts a process group, which the record holds), "judge" per
// judgment, "group" per parallel group decided and "final" with the
// result or error. A string longer than BlobThreshold is kept once beside
// the journal, in blobs/ of the run directory, and referred to by its
// digest (blob.go).
//
// Durability. Each record is encoded into the writer's one line buffer
// and written with a single write(2) before the wrapper returns, so a killed process (kill -9) never loses a record the
// run went on from. Records the run depends on ("end" of a completed
// attempt, "judge", "first") are also fsynced, by one of two policies
// (Options.SyncEvery): 0 fsyncs before the wrapper returns (concurrent
// writers share one fsync); d > 0 is a group commit that fsyncs within d of
// the write, so a machine crash or power loss loses at most the records of
// the last d (plus the fsync's own time); Close fsyncs what is pending. The
// header and the final record follow the same policy. A torn last line (a
// kill in the middle of a write) is detected and ignored on read, and cut
// off before a resume appends.
//
// Matching. A call attempt is keyed by its stable id and attempt number
// (CallRequest.Path, Attempt) and checked by the sha256 of its arguments'
// JSON; a judgment by its id, its occurrence and the digest of the values
// it mentions; a parallel group by its id and occurrence. Calls of a
// nested run are keyed under the outer call ("L12/2>L5"). When resuming,
// a match answers from the journal (a value, or the same error: a timeout
// still reads as context.DeadlineExceeded); an attempt that was in flight
// at the kill (no "end") or canceled runs again; anything
// else runs live and is appended. Answers are by key alone, whatever order
// the calls complete in: a parallel body's appends are merged at the join
// in index order (delegation/semantics.md, 15a), and how each parallel
// group was decided (its winner or failing iteration, and which iterations
// had ended by then) is journaled as a "group" record and answered from it
// (group.go), so what iterations append to shared lists, and the winner of
// a `parallel first`, come out as in the run; no clock is read and nothing
// takes turns. When replaying, everything must match; otherwise a
// *DivergenceError names the call id and .md position and stops the run.
// Journals before format 4 are replayed but not resumed (*UngroupedError).
//
// Integrity. Each line ends with a digest chained to the line before it,
// keyed (since format 3) with the user's journal key (UserKey, KeyFile), so an
// edited or resealed journal is refused (*EditedError); a journal of an
// older, unkeyed format is replayed but not resumed (*UnkeyedError). A
// resume takes the journal's lock before it reads it.
//
// Memory. A resume or a replay reads the journal once and keeps an index
// of where the records it answers from are (index.go), reading a record
// again when it answers; what follows the file's last newline (a torn
// write) is never read, and one line may cost at most MaxRecordBytes (or
// twice a raised value ceiling).
//
// Entry points. Create starts the journal of a new run; Resume reopens one
// to continue it; Replay opens one read-only to re-run it from the journal
// alone (both fail with a *MissingSecretsError when an environment secret
// the journal withheld is not set). Open is the two in two steps, for a
// caller that needs the journal's request and sources before it can say
// what the run is (package run's resume and replay): it reads the journal
// once (a resume locks it first), Opened.Log gives what was read, and
// Opened.Run makes the *Run from the same reading. The returned *Run wraps the evaluator's
// hooks (WrapCaller, WrapJudge, WrapRuntime), cancels the run on a
// divergence (Context, Err, Options.OnDiverge) and records or checks the
// outcome (Finish). ReadFile and Read parse a journal into a *Log; List,
// Summarize and Remove manage the runs under a base directory. Secrets are
// withheld by package redact, the one redactor of every output.
package journal
