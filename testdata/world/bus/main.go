// Command bus renders the nodes of upstream's basic-unit-suite example
// offline: `bus [NODE]` (default: the input's node) reads {"node","inputs","prior","events","diff"} on
// stdin and prints the node's new truth. Tests bind every node with
// --slot NODE=exec:'bus NODE'.
//
// BUS_FAIL=NODE makes that node fail (exit 1). BUS_WORDING changes the
// cosmetic markdown of alert-projection. BUS_HANG=DIR makes each run
// write DIR/started-N (N counting runs in DIR) and, when that file's
// number is BUS_HANG_AT, sleep until killed: a kill point for tests.
package main

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"time"
)

type request struct {
	Node   string                     `json:"node"`
	Inputs map[string]json.RawMessage `json:"inputs"`
	Prior  json.RawMessage            `json:"prior"`
	Events []event                    `json:"events"`
}

type event struct {
	ID       string `json:"id"`
	Kind     string `json:"kind"`
	Value    int    `json:"value"`
	Material *bool  `json:"material"`
}

const threshold = 5

func main() {
	if len(os.Args) > 2 {
		fmt.Fprintln(os.Stderr, "usage: bus [NODE]")
		os.Exit(2)
	}
	hang()
	var req request
	if err := json.NewDecoder(os.Stdin).Decode(&req); err != nil {
		fmt.Fprintln(os.Stderr, "bus:", err)
		os.Exit(1)
	}
	node := req.Node
	if len(os.Args) == 2 {
		node = os.Args[1]
	}
	if os.Getenv("BUS_FAIL") == node {
		fmt.Fprintln(os.Stderr, node+": render failed (BUS_FAIL)")
		os.Exit(1)
	}
	out, err := render(node, &req)
	if err != nil {
		fmt.Fprintln(os.Stderr, "bus:", err)
		os.Exit(1)
	}
	json.NewEncoder(os.Stdout).Encode(out)
}

func hang() {
	dir := os.Getenv("BUS_HANG")
	if dir == "" {
		return
	}
	at, _ := strconv.Atoi(os.Getenv("BUS_HANG_AT"))
	for n := 1; ; n++ {
		p := filepath.Join(dir, "started-"+strconv.Itoa(n))
		f, err := os.OpenFile(p, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
		if err != nil {
			continue
		}
		fmt.Fprintln(f, os.Getpid())
		f.Close()
		if n == at {
			time.Sleep(time.Minute)
			os.Exit(1)
		}
		return
	}
}

func input(req *request, name string, v any) {
	if raw, ok := req.Inputs[name]; ok {
		json.Unmarshal(raw, v)
	}
}

type counts struct {
	HighWaterMark int            `json:"high_water_mark"`
	CountsByKind  map[string]int `json:"counts_by_kind"`
}

type ledger struct {
	Counts    counts `json:"counts"`
	RawEvents struct {
		AcceptedEventIDs []string `json:"accepted_event_ids"`
	} `json:"raw_events"`
	LastSeenAt string `json:"last_seen_at"`
}

func render(node string, req *request) (any, error) {
	switch node {
	case "counter-events":
		var l ledger
		json.Unmarshal(req.Prior, &l)
		if l.Counts.CountsByKind == nil {
			l.Counts.CountsByKind = map[string]int{}
		}
		if l.RawEvents.AcceptedEventIDs == nil {
			l.RawEvents.AcceptedEventIDs = []string{}
		}
		seen := map[string]bool{}
		for _, id := range l.RawEvents.AcceptedEventIDs {
			seen[id] = true
		}
		for _, e := range req.Events {
			l.LastSeenAt = e.ID
			if seen[e.ID] {
				continue // the ledger dedups by id
			}
			seen[e.ID] = true
			l.RawEvents.AcceptedEventIDs = append(l.RawEvents.AcceptedEventIDs, e.ID)
			if e.Material == nil || *e.Material {
				l.Counts.HighWaterMark += e.Value
				l.Counts.CountsByKind[e.Kind] += e.Value
			}
		}
		sort.Strings(l.RawEvents.AcceptedEventIDs)
		return l, nil
	case "count-summary":
		var c counts
		input(req, "counts", &c)
		return map[string]any{
			"structured":  map[string]any{"total": c.HighWaterMark, "by_kind": c.CountsByKind, "threshold_crossed": c.HighWaterMark >= threshold},
			"explanation": fmt.Sprintf("%d events against a threshold of %d", c.HighWaterMark, threshold),
		}, nil
	case "count-trend":
		var c counts
		input(req, "counts", &c)
		var prior struct {
			Structured struct {
				CurrentTotal int `json:"current_total"`
			} `json:"structured"`
		}
		json.Unmarshal(req.Prior, &prior)
		prev := prior.Structured.CurrentTotal
		dir := "flat"
		if c.HighWaterMark > prev {
			dir = "up"
		} else if c.HighWaterMark < prev {
			dir = "down"
		}
		// valid_until is a fixed far horizon: these renders arm no clock.
		return map[string]any{"structured": map[string]any{"current_total": c.HighWaterMark, "previous_total": prev, "direction": dir}, "valid_until": "2999-01-01T00:00:00Z"}, nil
	case "raw-event-auditor":
		var r struct {
			AcceptedEventIDs []string `json:"accepted_event_ids"`
		}
		input(req, "raw_events", &r)
		if r.AcceptedEventIDs == nil {
			r.AcceptedEventIDs = []string{}
		}
		return map[string]any{"structured": map[string]any{"accepted_event_ids": r.AcceptedEventIDs, "duplicate_event_ids": []string{}, "malformed_events": []string{}}}, nil
	case "alert-state":
		var s struct {
			Structured struct {
				Total            int  `json:"total"`
				ThresholdCrossed bool `json:"threshold_crossed"`
			} `json:"structured"`
		}
		input(req, "CountSummary", &s)
		status := "quiet"
		switch {
		case s.Structured.ThresholdCrossed:
			status = "alert"
		case s.Structured.Total > 0:
			status = "warn"
		}
		return map[string]any{"status": status, "threshold": threshold, "evidence_refs": []any{map[string]any{"total": s.Structured.Total}}}, nil
	case "summary-echo":
		// Not in the example: a node tests add to it.
		var s struct {
			Structured struct {
				Total int `json:"total"`
			} `json:"structured"`
		}
		input(req, "CountSummary", &s)
		return map[string]any{"total": s.Structured.Total}, nil
	case "alert-projection":
		var a struct {
			Status    string `json:"status"`
			Threshold int    `json:"threshold"`
		}
		input(req, "AlertState", &a)
		subject := "counter " + a.Status
		wording := "The counter is " + a.Status + "."
		if os.Getenv("BUS_WORDING") != "" {
			wording = "Counter status: " + a.Status + "."
		}
		s := map[string]any{"status": a.Status, "threshold": a.Threshold, "subject": subject}
		html := "<p>" + wording + "</p>"
		sum := sha256.Sum256([]byte(wording + "\n" + html))
		return map[string]any{"structured": s, "structured_summary": s, "markdown": wording, "html": html, "projection_hash": "sha256:" + hex.EncodeToString(sum[:])}, nil
	case "executive-snapshot":
		var a struct {
			Status string `json:"status"`
		}
		var t struct {
			Structured struct {
				CurrentTotal int    `json:"current_total"`
				Direction    string `json:"direction"`
			} `json:"structured"`
		}
		var r struct {
			Structured struct {
				Dups []string `json:"duplicate_event_ids"`
			} `json:"structured"`
		}
		input(req, "AlertState", &a)
		input(req, "CountTrend", &t)
		input(req, "RawEventAudit", &r)
		health := "clean"
		if len(r.Structured.Dups) > 0 {
			health = "flagged"
		}
		return map[string]any{"structured": map[string]any{"status": a.Status, "total": t.Structured.CurrentTotal, "audit_health": health, "trend": t.Structured.Direction,
			"evidence_refs": []string{"AlertState", "CountTrend", "RawEventAudit"}}}, nil
	}
	return nil, fmt.Errorf("no node %q", node)
}
