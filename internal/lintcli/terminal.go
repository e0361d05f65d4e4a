package lintcli

import (
	"bufio"
	"fmt"
	"io"
	"os"

	"github.com/proselang/prose/diag"
)

// IsTerminal reports whether w is a terminal (a character device),
// looking through writers that wrap another (an Unwrap() io.Writer
// method, as a redacting writer has).
func IsTerminal(w io.Writer) bool {
	for {
		u, ok := w.(interface{ Unwrap() io.Writer })
		if !ok {
			break
		}
		w = u.Unwrap()
	}
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// ColorEnabled reports whether output to w may be coloured: w is a
// terminal, NO_COLOR is unset or empty (https://no-color.org), and TERM
// is not "dumb".
func ColorEnabled(w io.Writer, getenv func(string) string) bool {
	return IsTerminal(w) && getenv("NO_COLOR") == "" && getenv("TERM") != "dumb"
}

// SGR parameters of the colours diagnostics are printed in.
const (
	red    = "31"
	yellow = "33"
	bold   = "1"
)

// WriteDiagnostics prints l as diag.List.String does, one
// "FILE:LINE:COL: SEVERITY: MESSAGE [CODE]" line each; with color (where
// ColorEnabled says so) the severity is coloured from the diagnostic's
// Severity: errors red, warnings yellow.
func WriteDiagnostics(w io.Writer, l diag.List, color bool) error {
	bw := bufio.NewWriter(w)
	for _, d := range l {
		sev := d.Severity.String()
		switch {
		case color && d.Severity == diag.Error:
			sev = "\x1b[" + bold + ";" + red + "m" + sev + "\x1b[0m"
		case color:
			sev = "\x1b[" + yellow + "m" + sev + "\x1b[0m"
		}
		fmt.Fprintf(bw, "%s: %s: %s [%s]\n", d.Position, sev, d.Message, d.Code)
	}
	return bw.Flush()
}
