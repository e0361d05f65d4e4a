// Package version says which build of prose is running: the module
// version and the VCS commit that debug.ReadBuildInfo reports. A journal
// records String() so a run says which prose wrote it.
//
// Entry points: Get (the Info of this binary), Info.String (one line,
// "v0.3.0", "v0.3.0 (commit 1a2b3c4d5e6f, modified)", "devel (commit
// 1a2b3c4d5e6f)").
//
// A binary built with `go build` inside the repository has the module
// version "(devel)": it is printed as "devel", and the commit (with
// "modified" when the tree had uncommitted changes) tells the builds
// apart. `go install module@version` gives the tagged version and no
// commit. A test binary has neither.
package version

import (
	"runtime/debug"
	"strings"
)

// Info is what the build says about itself.
type Info struct {
	Module   string // the main module's path ("" when unknown)
	Version  string // "v0.3.0", or "devel" for a local build
	Commit   string // the VCS revision, "" when the build did not record one
	Time     string // the commit time (RFC 3339), "" when unknown
	Modified bool   // the tree had uncommitted changes
	Go       string // the Go version that built it
}

// Get returns the running binary's Info.
func Get() Info {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return Info{Version: "devel"}
	}
	return FromBuildInfo(bi)
}

// FromBuildInfo reads an Info from build information.
func FromBuildInfo(bi *debug.BuildInfo) Info {
	in := Info{Module: bi.Main.Path, Version: bi.Main.Version, Go: bi.GoVersion}
	if in.Version == "" || in.Version == "(devel)" {
		in.Version = "devel"
	}
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			in.Commit = s.Value
		case "vcs.time":
			in.Time = s.Value
		case "vcs.modified":
			in.Modified = s.Value == "true"
		}
	}
	return in
}

// String is the one-line form: the version, then the short commit and
// "modified" in parentheses when the build recorded them.
func (in Info) String() string {
	var extra []string
	if in.Commit != "" {
		c := in.Commit
		if len(c) > 12 {
			c = c[:12]
		}
		extra = append(extra, "commit "+c)
	}
	if in.Modified {
		extra = append(extra, "modified")
	}
	if len(extra) == 0 {
		return in.Version
	}
	return in.Version + " (" + strings.Join(extra, ", ") + ")"
}

// String is Get().String(): what a journal records as the version that
// wrote it.
func String() string { return Get().String() }
