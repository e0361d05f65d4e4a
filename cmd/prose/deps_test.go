package main

import (
	"os/exec"
	"strings"
	"testing"
)

// TestLeanDependencies: prose links what lint and version need and
// nothing of running specs, nor a command-line package (see package
// lintcli): their package initialisations and pages touched would be
// paid by every lint.
func TestLeanDependencies(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	deps := strings.Fields(string(out))
	forbidden := []string{
		"go.temporal.io/", "google.golang.org/grpc", "google.golang.org/grpc/", "google.golang.org/protobuf/",
		"go.opentelemetry.io/", "github.com/modelcontextprotocol/", "github.com/sashabaranov/go-openai",
		"net/http", "encoding/gob", "html/template",
		// package net (cobra's flag package links it) makes the program
		// link the C resolver where cgo is on: a dynamically linked
		// program, about a millisecond more at every start
		"net", "runtime/cgo", "github.com/spf13/",
		"github.com/proselang/prose/internal/cli", "github.com/proselang/prose/run", "github.com/proselang/prose/runhost",
		"github.com/proselang/prose/llm", "github.com/proselang/prose/execsvc", "github.com/proselang/prose/journal",
		"github.com/proselang/prose/telemetry", "github.com/proselang/prose/serve", "github.com/proselang/prose/serve/",
		"github.com/proselang/prose/mcpserve", "github.com/proselang/prose/tools",
		// Not forbidden: package delegation. Lint decides claim forms
		// and fixture types with its values (claim/form, shape); its
		// initialisation is 0.05-0.1 ms (GODEBUG=inittrace=1), and it
		// links nothing above.
	}
	found := map[string]bool{}
	for _, d := range deps {
		for _, f := range forbidden {
			// a name ending in / forbids the tree under it, any other
			// that package alone
			if d == f || strings.HasSuffix(f, "/") && strings.HasPrefix(d, f) {
				t.Errorf("prose links %s", d)
			}
		}
		found[d] = true
	}
	// the list is the real one: what lint needs is in it
	for _, want := range []string{"github.com/proselang/prose/lint", "github.com/proselang/prose/internal/lintcli", "github.com/yuin/goldmark/parser"} {
		if !found[want] {
			t.Errorf("prose does not link %s: is this the dependency list of cmd/prose?", want)
		}
	}
}
