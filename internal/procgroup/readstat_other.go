//go:build !linux

package procgroup

import (
	"os"
	"strconv"
)

// readStat reads /proc/PID/stat where there is one.
func readStat(pid int) (stat, bool) {
	raw, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return stat{}, false
	}
	return parseStat(raw)
}
