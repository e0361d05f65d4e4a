package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/proselang/prose/serve"
)

// examplesServe is a prose serve running in this process over one
// example project.
type examplesServe struct {
	url    string
	stderr *lockedBuffer
	cancel context.CancelFunc
	done   chan error
}

var examplesListenRE = regexp.MustCompile(`listening on (http://\S+)`)

// startExamplesServe runs prose serve over o on a free loopback port and
// waits until it listens; when serve ends first it returns serve with no
// url, and serve's error.
func startExamplesServe(t *testing.T, o *serveOptions) (*examplesServe, error) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	s := &examplesServe{stderr: &lockedBuffer{}, cancel: cancel, done: make(chan error, 1)}
	go func() { s.done <- runServe(ctx, streams{in: strings.NewReader(""), out: io.Discard, err: s.stderr}, o) }()
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(5 * time.Millisecond) {
		if m := examplesListenRE.FindStringSubmatch(s.stderr.String()); m != nil {
			s.url = m[1]
			return s, nil
		}
		select {
		case err := <-s.done:
			cancel()
			if err == nil {
				err = errors.New("serve ended with no error before listening")
			}
			return s, err
		default:
		}
		if time.Now().After(deadline) {
			s.stop(t)
			t.Fatalf("serve did not listen within a minute:\n%s", s.stderr.String())
		}
	}
}

// stop ends serve as SIGTERM does and checks it ends cleanly.
func (s *examplesServe) stop(t *testing.T) {
	t.Helper()
	s.cancel()
	select {
	case err := <-s.done:
		if err != nil {
			t.Errorf("serve after its context ended: %v (want a clean stop)\n%s", err, s.stderr.String())
		}
	case <-time.After(time.Minute):
		t.Errorf("serve did not stop within a minute of its context ending")
	}
}

// trigger posts event to gateway and returns the drain that will answer
// it.
func (s *examplesServe) trigger(t *testing.T, gateway, event string) int {
	t.Helper()
	resp, err := http.Post(s.url+"/trigger/"+gateway, "application/json", strings.NewReader(event))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	var a struct{ Drain int }
	if resp.StatusCode != http.StatusAccepted || json.Unmarshal(b, &a) != nil || a.Drain == 0 {
		t.Fatalf("POST /trigger/%s: %d %s", gateway, resp.StatusCode, b)
	}
	return a.Drain
}

// outcome waits for drain id to be done and returns its outcome; the
// bound is a guard against a hang, not a measure.
func (s *examplesServe) outcome(t *testing.T, id int) *serve.Outcome {
	t.Helper()
	for deadline := time.Now().Add(2 * time.Minute); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		resp, err := http.Get(fmt.Sprintf("%s/drains/%d", s.url, id))
		if err != nil {
			t.Fatal(err)
		}
		var st struct {
			State   string
			Outcome *serve.Outcome
		}
		err = json.NewDecoder(resp.Body).Decode(&st)
		resp.Body.Close()
		if err == nil && st.State == "done" {
			return st.Outcome
		}
	}
	t.Fatalf("drain %d not done within two minutes\n%s", id, s.stderr.String())
	return nil
}

// Every upstream example project is served: with every node bound to a
// program, one event to each gateway drains the whole project, every
// node publishes a truth and the receipts verify. A project whose nodes
// read inputs nothing in it maintains is refused at start without them,
// naming each input, and never listens; given them (--input, kept for
// every drain) it is served as the others.
func TestUpstreamExamplesServe(t *testing.T) {
	served, refused := 0, 0
	for _, project := range exampleProjects(t) {
		g, _, err := loadWorld(project)
		if err != nil {
			t.Errorf("%s: %v", project, err)
			continue
		}
		if len(g.Nodes) == 0 {
			continue // a project of functions only
		}
		var callerInputs []string
		for _, n := range g.Nodes {
			for _, in := range n.CallerInputs {
				callerInputs = append(callerInputs, n.ID+"."+in)
			}
		}
		if len(callerInputs) > 0 {
			refused++
		}
		served++
		t.Run(filepath.Base(project), func(t *testing.T) {
			dir := t.TempDir()
			state := filepath.Join(dir, "state")
			o := &serveOptions{path: project, state: state, addr: "127.0.0.1:0", logFormat: "text", engine: "local",
				maxParallel: 4, maxEventBytes: 1 << 20}
			var gateways, events []string
			for i, n := range g.Nodes {
				prog := filepath.Join(dir, fmt.Sprintf("node%d.sh", i))
				script := "cat >/dev/null\ncat <<'EOF'\n" + plausibleTruth(n) + "\nEOF\n"
				if err := os.WriteFile(prog, []byte(script), 0o644); err != nil {
					t.Fatal(err)
				}
				o.slots = append(o.slots, n.ID+"=exec:sh "+prog)
				if n.Kind == "gateway" {
					gateways = append(gateways, n.ID)
					events = append(events, plausibleEvent(n))
				}
			}
			s, err := startExamplesServe(t, o)
			if len(callerInputs) > 0 {
				if s.url != "" {
					s.stop(t)
					t.Fatalf("serve listened although %s are inputs nothing maintains and serve has no caller to give them:\n%s", strings.Join(callerInputs, ", "), s.stderr.String())
				}
				var ee *exitError
				if !errors.As(err, &ee) || ee.Code != exitUsage {
					t.Errorf("refusal %v: want a usage error (exit %d)", err, exitUsage)
				}
				for _, in := range callerInputs {
					if !strings.Contains(s.stderr.String(), in) {
						t.Errorf("the refusal does not name the input %s:\n%s", in, s.stderr.String())
					}
				}
				for _, in := range callerInputs {
					o.inputs = append(o.inputs, in+"=given by the caller")
				}
				s, err = startExamplesServe(t, o)
			}
			if err != nil {
				t.Fatalf("serve: %v", err)
			}
			var drains []int
			for i, gw := range gateways {
				drains = append(drains, s.trigger(t, gw, events[i]))
			}
			if len(gateways) == 0 { // no event to send: wake every node
				for _, n := range g.Nodes {
					drains = append(drains, s.trigger(t, n.ID, ""))
				}
			}
			for _, d := range drains {
				if o := s.outcome(t, d); o == nil || o.Error != "" || o.Failed != 0 {
					t.Errorf("drain %d: %+v", d, o)
				}
			}
			s.stop(t)
			for _, n := range g.Nodes {
				if _, err := os.Stat(filepath.Join(state, n.ID, "truth.json")); err != nil {
					t.Errorf("%s published nothing: %v\n%s", n.ID, err, s.stderr.String())
				}
			}
			var out, errw bytes.Buffer
			if code := Main([]string{"receipts", "verify", "--state", state}, strings.NewReader(""), &out, &errw); code != 0 {
				t.Errorf("prose receipts verify: exit %d\n%s%s", code, out.String(), errw.String())
			}
		})
	}
	if served < 6 || refused < 1 {
		t.Errorf("%d example projects served, %d of them refused first without their caller inputs; want the 6 that hold a world model, and a refusal", served, refused)
	}
}
