//go:build linux

package serve

// afterDrain is what DrainQueued does after a drain beside recording
// it: follow the spec files the drain read.
func afterDrain(s *Server) {
	if s.o.Reload != nil {
		s.follow()
	}
}
