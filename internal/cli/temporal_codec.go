package cli

import (
	"context"
	"fmt"
	"net"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/proselang/prose/serve/httpapi"
)

// codecServerOptions are the flags of `prose temporal codec-server`.
type codecServerOptions struct {
	listen, tokenFile, allowOrigin, keyFile string
}

// newTemporalCmd is `prose temporal`, the commands for the operators of
// a Temporal cluster that runs prose.
func newTemporalCmd(s streams) *cobra.Command {
	if linked == nil {
		return handedOff("temporal", "Tools for operators of a Temporal cluster running prose (codec-server)")
	}
	cmd := &cobra.Command{
		Use:   "temporal",
		Short: "Tools for operators of a Temporal cluster running prose (codec-server)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return usageErrorf("temporal: give a subcommand (codec-server)")
		},
	}
	cmd.AddCommand(newCodecServerCmd(s))
	return cmd
}

func newCodecServerCmd(s streams) *cobra.Command {
	o := &codecServerOptions{}
	cmd := &cobra.Command{
		Use:   "codec-server --listen ADDR --token-file FILE [--allow-origin ORIGIN]",
		Short: "Decrypt runs' payloads for the Temporal UI and CLI of whoever holds the token",
		Long: `codec-server serves Temporal's remote codec protocol (POST /encode and
/decode) with the key prose encrypts runs' payloads with (the workers'
key file: $` + envTemporalKeyFile + `, else temporal.key in prose's config
directory; --key-file names another), so that operators see the inputs,
results and failures of runs in the Temporal UI and CLI instead of
ciphertext. It needs the key file (it never makes one) and a token:
every request must carry Authorization: Bearer TOKEN, TOKEN being the
content of --token-file. --allow-origin names the origin of the
Temporal UI (e.g. http://localhost:8233) whose pages may call it.

  temporal workflow show -w ID --codec-endpoint http://ADDR --codec-auth "Bearer $(cat FILE)"

Exit status: 0 on Ctrl-C, 1 when the server fails, 2 bad usage (no
token, no key, an address in use).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runCodecServer(cmdContext(cmd), s, o)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&o.listen, "listen", "127.0.0.1:8081", "serve at `ADDR` (host:port; a bare :port binds 127.0.0.1)")
	fl.StringVar(&o.tokenFile, "token-file", "", "the bearer token every request must carry is the content of `FILE` (required)")
	fl.StringVar(&o.allowOrigin, "allow-origin", "", "the `ORIGIN` of the Temporal UI (scheme://host:port) whose pages may call the server")
	fl.StringVar(&o.keyFile, "key-file", "", "the payload key `FILE` (default $"+envTemporalKeyFile+", else the workers' default)")
	return cmd
}

func runCodecServer(ctx context.Context, s streams, o *codecServerOptions) error {
	if o.tokenFile == "" {
		return usageErrorf("temporal codec-server: give --token-file FILE: the server decrypts every run's payloads for whoever calls it")
	}
	b, err := os.ReadFile(o.tokenFile)
	if err != nil {
		return usageErrorf("temporal codec-server: --token-file: %v", err)
	}
	token := strings.TrimSpace(string(b))
	if token == "" {
		return usageErrorf("temporal codec-server: --token-file %s is empty: write the token callers must send into it", o.tokenFile)
	}
	h, err := linked.CodecHandler(o.keyFile, token, o.allowOrigin)
	if err != nil {
		return usageErrorf("temporal codec-server: %v", err)
	}
	addr := o.listen
	if strings.HasPrefix(addr, ":") {
		addr = "127.0.0.1" + addr
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return usageErrorf("temporal codec-server: --listen: %v", err)
	}
	fmt.Fprintf(s.err, "prose: Temporal codec server at http://%s\n", ln.Addr())
	return serveUntil(ctx, "temporal codec-server", httpapi.Server(h), ln)
}
