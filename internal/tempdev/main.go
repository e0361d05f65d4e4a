// Command tempdev runs a single-process Temporal server on 127.0.0.1 for the
// end-to-end tests of prose's Temporal engine. It lives in its own Go module so
// that the main module depends on the Temporal SDK only.
//
// It prints one line, "ADDRESS NAMESPACE", on stdout (and to the file named by
// -addr-file, if given) once the server accepts connections, then serves until
// it receives SIGINT or SIGTERM. Its state is in memory and is lost on exit.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	"go.temporal.io/sdk/client"
	"go.temporal.io/server/temporaltest"
)

func main() {
	addrFile := flag.String("addr-file", "", "also write \"ADDRESS NAMESPACE\" to this file once the server is ready")
	flag.Parse()

	ts := temporaltest.NewServer()
	addr, ns := ts.GetFrontendHostPort(), ts.GetDefaultNamespace()

	// Wait until the frontend answers on the namespace, so that a reader of the
	// address can start workers at once.
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	c, err := client.DialContext(ctx, client.Options{HostPort: addr, Namespace: ns})
	if err == nil {
		_, err = c.CheckHealth(ctx, &client.CheckHealthRequest{})
		c.Close()
	}
	cancel()
	if err != nil {
		fmt.Fprintf(os.Stderr, "tempdev: server at %s did not become ready: %v\n", addr, err)
		os.Exit(1)
	}

	line := addr + " " + ns + "\n"
	if *addrFile != "" {
		tmp := *addrFile + ".tmp"
		if err := os.WriteFile(tmp, []byte(line), 0o644); err != nil {
			fmt.Fprintln(os.Stderr, "tempdev:", err)
			os.Exit(1)
		}
		if err := os.Rename(tmp, *addrFile); err != nil {
			fmt.Fprintln(os.Stderr, "tempdev:", err)
			os.Exit(1)
		}
	}
	fmt.Print(line)

	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	<-sig
	ts.Stop()
}
