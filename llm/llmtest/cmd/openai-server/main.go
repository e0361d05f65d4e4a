// Command openai-server is a scripted OpenAI-compatible Chat Completions
// server, the one package llmtest gives tests, for trying prose's model
// features with no model and no network:
//
//	go run ./llm/llmtest/cmd/openai-server [-addr 127.0.0.1:8089] REPLIES.jsonl
//
// REPLIES.jsonl holds the replies in order, one JSON object a line, with
// the fields of llmtest.Reply ("content", "tool_calls": [{"name",
// "arguments"}], "times", "match", ...). It prints its base URL (for
// OPENAI_BASE_URL) and serves until it is interrupted; a request after
// the last reply gets a 500.
package main

import (
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/proselang/prose/llm/llmtest"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:8089", "listen on `ADDR` (loopback by default)")
	flag.Parse()
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: openai-server [-addr ADDR] REPLIES.jsonl")
		os.Exit(2)
	}
	data, err := os.ReadFile(flag.Arg(0))
	if err != nil {
		fmt.Fprintln(os.Stderr, "openai-server:", err)
		os.Exit(2)
	}
	replies, err := llmtest.ParseReplies(data)
	if err != nil {
		fmt.Fprintf(os.Stderr, "openai-server: %s: %v\n", flag.Arg(0), err)
		os.Exit(2)
	}
	s, err := llmtest.Listen(*addr, replies...)
	if err != nil {
		fmt.Fprintln(os.Stderr, "openai-server:", err)
		os.Exit(1)
	}
	fmt.Println(s.URL)
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, os.Interrupt, syscall.SIGTERM)
	<-stop
	s.Close()
}
