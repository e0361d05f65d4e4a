package version

import (
	"runtime/debug"
	"testing"
)

func TestFromBuildInfo(t *testing.T) {
	for _, c := range []struct {
		name string
		bi   debug.BuildInfo
		want string
	}{
		{"tagged", debug.BuildInfo{Main: debug.Module{Path: "github.com/proselang/prose", Version: "v0.3.0"}}, "v0.3.0"},
		{"devel with commit", debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: []debug.BuildSetting{
			{Key: "vcs.revision", Value: "1a2b3c4d5e6f7a8b9c0d"}, {Key: "vcs.modified", Value: "true"}}},
			"devel (commit 1a2b3c4d5e6f, modified)"},
		{"devel clean", debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: []debug.BuildSetting{
			{Key: "vcs.revision", Value: "abc"}, {Key: "vcs.modified", Value: "false"}}}, "devel (commit abc)"},
		{"empty", debug.BuildInfo{}, "devel"},
	} {
		if got := FromBuildInfo(&c.bi).String(); got != c.want {
			t.Errorf("%s: got %q, want %q", c.name, got, c.want)
		}
	}
}

func TestGetNeverEmpty(t *testing.T) {
	if String() == "" {
		t.Fatal("String() is empty")
	}
}
