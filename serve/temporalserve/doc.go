// Package temporalserve is prose serve on a Temporal cluster: each
// project graph is one long-lived workflow that keeps the graph's trigger
// queue, and each node's render and commit is an activity run by
// whichever worker (prose worker) takes it.
//
// What lives where (decided):
//
//   - The workflow's state replaces the local queue file: the pending
//     triggers by drain id, the next drain id, the fingerprints each
//     gateway was given (duplicates are known by them), the events held
//     for gateways whose render failed, the outcomes of the last
//     keepOutcomes drains, and per node when it last fired and last woke
//     itself (the cadences' base). It is carried across Continue-As-New,
//     which the workflow takes once Temporal suggests it or its history
//     passes maxHistory events, between drains and with no update in
//     flight. The fingerprints are never dropped (as the queue file is
//     never compacted), about 80 bytes an event.
//   - A trigger is an update (TriggerUpdate): its handler puts the
//     trigger in the workflow's state and returns the drain id, and the
//     SDK answers the caller only once the update's completion is in the
//     history. That completion is the durable acknowledgement behind the
//     HTTP 202: a worker or the server lost after it loses nothing.
//   - The world model stays the state directory of package store, on a
//     path every worker reaches (a shared or network filesystem mounted
//     at the same place, or one machine). The store is already the
//     format of record (receipts verify, prose world show, the local
//     serve read it), its writes are atomic renames with a receipt as
//     commit point, so a worker killed anywhere leaves the old commit or
//     the new one; truths never travel through the cluster (they may be
//     large, and the history would hold every version of them) and a
//     worker reads a node's inputs where the last commit put them. A
//     second store (a database) would need a second commit protocol and
//     give nothing the directory lacks for one graph. The existing lock
//     (DIR/.serve/lock, taken by a local prose serve) keeps the two
//     variants off one directory: a drain on Temporal does not begin
//     while a local serve holds it (Begin is retried, activityopts.LostWorkerAttempts
//     times, then the drain ends with that error), and prose serve
//     --engine temporal marks the directory (serve.TemporalMark), which
//     makes a local serve or drain of it refuse. Within a drain each
//     node's commit takes a lock of its own
//     (DIR/.serve/temporal/HASH.lock), so an attempt whose worker was
//     given up for lost but still runs cannot commit beside its retry. flock over NFS needs a lock daemon (NFSv4 has
//     it built in); a filesystem without working locks must not be
//     shared by more than one worker.
//   - The project (its specs) is read by each worker from the same path
//     (World.Project): render bindings (exec: commands) run on the
//     worker, with its environment and its model settings, as in a run
//     on Temporal.
//
// The shape follows the project (decided). The workflow plans a drain by
// the Shape it took from a worker (levels by height, kinds, cadences),
// and keeps it across Continue-As-New; Start joins a workflow already
// running for the state directory. So the Shape carries the Fingerprint
// of the graph it was taken from (nodes, kinds, heights, cadences,
// contracts, edges), each drain carries it to its steps (DrainIn.Shape),
// and Begin, Plan and Fire refuse, with no retry and nothing committed,
// on a worker whose graph has another (opened again first, as its files
// may have changed since it opened them): the error names the project,
// both fingerprints and the fix, for a plan by other levels would fire a
// node before its producer and keep a truth that does not follow from
// its inputs. prose serve --engine temporal, as it starts, gives the
// workflow its graph's fingerprint (ShapeUpdate, answered at once);
// between drains the workflow then takes the shape again when it
// differs (ReshapeActivity, from a worker that opens the project as it
// is now) and queues a drain that checks every node, as a local edit
// does (serve.Entry.Edit); when it does not, it looks for sources that
// moved while nothing ran (StaleActivity: reconcile.Stale on a worker)
// and queues that drain when a node is stale or the look fails, never
// for a state directory never drained, as a local serve does at its
// start. A drain already queued does that work, so then none is
// queued. A trigger for a node the old shape lacks waits for the new
// one. The shape is the workers' (a server whose files differ from
// theirs is logged, and its graph is not taken). A project edited while
// the server runs is taken when it starts again (no process watches the
// files); until then a worker that has the project open renders the
// graph the shape was taken from, and one that opens it anew refuses the
// drains, which end with that error as any failed drain does (their
// triggers are not delivered again). These paths run only after a
// ShapeUpdate, which no history recorded before them holds, so they need
// no workflow.GetVersion; a shape and a drain recorded without a
// fingerprint are not checked, and the first ShapeUpdate gives such a
// workflow a shape with one.
//
// A drain is a sequence of activities: Begin fixes the store drain
// number (one more than any receipt's); per graph height, Plan lists the
// nodes that fire, and Fire renders (when its memo key moved) and
// commits each, at most World.MaxParallel at once, with a receipt
// sequence number the workflow assigns, so the ledger does not depend on
// which render finished first. Fire is idempotent: when the node's last
// receipt carries the drain's number, the commit landed before (its
// worker died before reporting it) and that receipt is returned with
// nothing rendered. Unlike a local drain, a level may be committed in
// part when a worker is lost; its retry completes it.
//
// Continuity is a durable timer: after each drain the workflow asks an
// activity (DueBy; Due in a workflow begun before it) when each node
// with a cadence is next due, from the times its state keeps and the
// store's freshness fields, and waits on a workflow timer until the
// soonest (or a trigger); the nodes due when it fires are queued as self
// wakes, a gateway due by its schedule with the event serve's WakeDue
// gives it (serve.ScheduledEvent), a duplicate if it was given it
// before.
//
// Every payload is encrypted as for runs on Temporal (package temporal's
// codec): a client from temporal.Dial carries it.
//
// Main types: World, Project, Activities, State, Shape, Front. Entry
// points: Register, Start, NewFront, Fingerprint.
package temporalserve
