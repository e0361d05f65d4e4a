package cli

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/proselang/prose/internal/temporalport"
	"github.com/proselang/prose/serve"
	"github.com/proselang/prose/world/graph"
	"github.com/proselang/prose/world/store"
)

// serveTemporal starts (or joins) the serve workflow of the state
// directory and serves its front: the workers of the task queue drain.
func serveTemporal(ctx context.Context, s streams, o *serveOptions, g *graph.Graph, st *store.Store, token string, log func(*serve.Outcome)) error {
	if linked == nil {
		return errEngineNotLinked
	}
	c, err := temporalConn(o.conn, "serve --engine temporal")
	if err != nil {
		return err
	}
	w := temporalport.World{Slots: o.slots, MaxParallel: o.maxParallel}
	for _, p := range []struct {
		in  string
		out *string
	}{{o.path, &w.Project}, {st.Dir, &w.State}, {o.signKey, &w.SignKey}} {
		if p.in == "" {
			continue
		}
		abs, err := filepath.Abs(p.in)
		if err != nil {
			return usageErrorf("serve: %v", err)
		}
		*p.out = abs
	}
	c.Log = s.err
	cl, err := linked.Dial(ctx, c)
	if err != nil {
		return &exitError{Code: exitFailure, Err: fmt.Errorf("serve: %w", err)}
	}
	defer cl.Close()
	id, err := cl.StartServe(ctx, queueName(c), w)
	if err != nil {
		return &exitError{Code: exitFailure, Err: fmt.Errorf("serve: %w", err)}
	}
	mark := fmt.Sprintf("workflow %s on task queue %s at %s", id, queueName(c), c.Address)
	err = os.MkdirAll(filepath.Dir(serve.TemporalMark(st.Dir)), 0o700)
	if err == nil {
		err = os.WriteFile(serve.TemporalMark(st.Dir), []byte(mark+"\n"), 0o600)
	}
	if err != nil {
		return &exitError{Code: exitFailure, Err: fmt.Errorf("serve: %w", err)}
	}
	fmt.Fprintf(s.err, "prose serve: %s\n", mark)
	front := cl.Front(id, g, st)
	// The workflow keeps the shape of the graph it was started with: a
	// project edited since is given to it again.
	note, err := front.Take()
	if err != nil {
		return &exitError{Code: exitFailure, Err: fmt.Errorf("serve: %w", err)}
	}
	if note != "" {
		fmt.Fprintf(s.err, "prose serve: %s\n", note)
	}
	return serveHTTP(ctx, s, o, g, front, token, func(ctx context.Context) error {
		front.Follow(ctx, 200*time.Millisecond, log)
		return nil
	})
}
