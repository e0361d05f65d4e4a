// Command openai-server is a scripted OpenAI-compatible Chat Completions
// server, the one package llmtest gives tests, for trying prose's model
// features with no model and no network:
//
//	go run ./llm/llmtest/cmd/openai-server [-addr ADDR] REPLIES.jsonl [COMMAND [ARG]...]
//
// REPLIES.jsonl holds the replies in order, one JSON object a line, with
// the fields of llmtest.Reply ("content", "tool_calls": [{"name",
// "arguments"}], "times", "match", ...); a request after the last reply
// gets a 500. With a COMMAND, it runs it with OPENAI_BASE_URL set to the
// server (stdin, stdout and stderr its own), stops when it ends and exits
// with its status. Without one, it prints its base URL and serves until
// it is interrupted.
package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"syscall"

	"github.com/proselang/prose/llm/llmtest"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:0", "listen on `ADDR` (loopback, a free port by default)")
	flag.Parse()
	if flag.NArg() < 1 {
		fmt.Fprintln(os.Stderr, "usage: openai-server [-addr ADDR] REPLIES.jsonl [COMMAND [ARG]...]")
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
	defer s.Close()
	if flag.NArg() > 1 {
		os.Exit(runCommand(s.URL, flag.Args()[1:]))
	}
	fmt.Println(s.URL)
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, os.Interrupt, syscall.SIGTERM)
	<-stop
}

// runCommand runs args with OPENAI_BASE_URL set to url and returns its
// exit status.
func runCommand(url string, args []string) int {
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	cmd.Env = append(os.Environ(), "OPENAI_BASE_URL="+url)
	signal.Ignore(os.Interrupt) // the command gets Ctrl-C and decides
	err := cmd.Run()
	var exit *exec.ExitError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &exit):
		return exit.ExitCode()
	}
	fmt.Fprintln(os.Stderr, "openai-server:", err)
	return 1
}
