//go:build linux

package serve

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"
	"unsafe"

	"github.com/proselang/prose/spec"
	"github.com/proselang/prose/world/graph"
)

// The change check of a served graph on Linux: one inotify instance
// watching the directories its files are in, read without blocking
// before each drain. What is watched, why it is enough, and what
// happens when it is not, is said in reload.go ("The change check").

// watchMask is what each watched directory reports: a file or
// directory created, removed, written, closed after writing, renamed in
// or out, or its metadata changed; and the directory itself removed or
// renamed.
const watchMask = syscall.IN_CREATE | syscall.IN_DELETE | syscall.IN_MODIFY | syscall.IN_CLOSE_WRITE |
	syscall.IN_MOVED_FROM | syscall.IN_MOVED_TO | syscall.IN_ATTRIB | syscall.IN_DELETE_SELF | syscall.IN_MOVE_SELF |
	syscall.IN_ONLYDIR

// watchDir is one spelling of a watched directory.
type watchDir struct {
	path string
	// region: a directory the walk entered, whose *.prose.md files and
	// subdirectories are the graph's; else the directory of a file read
	// from outside them (its other entries are not).
	region bool
}

// watcher is the inotify instance of one served graph.
type watcher struct {
	fd   int
	root string
	dirs map[int32][]watchDir
	// byPath is each watched directory's descriptor, by spelling.
	byPath map[string]int32
	// files are the files watched by name in their directories: the
	// wiring file and the spec files read from outside the region.
	files map[string]bool
	// polled are files whose directory does not exist (no watch can be
	// put on it): each look stats them.
	polled map[string]bool
	// broken says a watch could not be added (or the instance not
	// made): every look falls back until the watches are rebuilt.
	broken error
	// pending says a change was found outside a look (a file followed
	// after it was read differs from what was read).
	pending bool
	// touched are the files events named (and those followed after
	// they were read that differ from what was read), since the served
	// graph's last load began (Server.reload clears it).
	touched map[string]bool
	buf     []byte
	// lose is a test's hook: the next look drops what is queued and
	// reports it lost, as an overflowed queue does.
	lose bool
}

// newWatcher watches the files g was loaded from and returns their
// stamps, taken by the same walk: each directory is watched before its
// entries are read, so a file created in it is either seen by the walk
// or reported by the watch. A watcher whose watches could not all be
// added is returned broken (its looks report the loss); its stamps are
// whole either way.
func newWatcher(g *graph.Graph) (*watcher, Stamps) {
	w := &watcher{fd: -1, root: filepath.Clean(g.Root), dirs: map[int32][]watchDir{}, byPath: map[string]int32{},
		files: map[string]bool{}, polled: map[string]bool{}, touched: map[string]bool{}}
	fd, err := syscall.InotifyInit1(syscall.IN_NONBLOCK | syscall.IN_CLOEXEC)
	if err != nil {
		w.broken = os.NewSyscallError("inotify_init1", err)
	} else {
		w.fd = fd
	}
	stamps := Stamps{}
	w.walk(w.root, stamps, false)
	w.follow(filepath.Join(w.root, graph.WiringFile), stamps)
	if g.Specs != nil {
		for _, f := range g.Specs.Files() {
			if !w.inRegion(f.Path) {
				w.follow(f.Path, stamps)
			}
		}
	}
	return w, stamps
}

// close releases the inotify instance and its watches.
func (w *watcher) close() {
	if w != nil && w.fd >= 0 {
		syscall.Close(w.fd)
		w.fd = -1
	}
}

// add watches dir (spelled so); region says what it is.
func (w *watcher) add(dir string, region bool) {
	if w.broken != nil {
		return
	}
	wd, err := syscall.InotifyAddWatch(w.fd, dir, watchMask)
	if err != nil {
		w.broken = &os.PathError{Op: "inotify_add_watch", Path: dir, Err: err}
		return
	}
	d := int32(wd)
	for i, s := range w.dirs[d] {
		if s.path == dir {
			w.dirs[d][i].region = s.region || region
			return
		}
	}
	w.dirs[d] = append(w.dirs[d], watchDir{path: dir, region: region})
	w.byPath[dir] = d
}

// walk watches dir and every directory under it that graph.Load walks,
// and stamps the spec files it finds (as StampsOf does), touched with
// touch; it returns whether it found any.
func (w *watcher) walk(dir string, stamps Stamps, touch bool) bool {
	found := false
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() {
			if p != w.root && skipDir(d.Name()) {
				return filepath.SkipDir
			}
			// Before WalkDir reads its entries.
			w.add(p, true)
			return nil
		}
		if d.Type().IsRegular() && strings.HasSuffix(d.Name(), spec.Suffix) {
			if st, ok := stampOf(p); ok {
				stamps[p] = st
				found = true
				if touch {
					w.touched[p] = true
				}
			}
		}
		return nil
	})
	return found
}

// inRegion says p (a file) is in a directory the walk enters.
func (w *watcher) inRegion(p string) bool {
	p = filepath.Clean(p)
	prefix := w.root
	if !strings.HasSuffix(prefix, string(filepath.Separator)) {
		prefix += string(filepath.Separator)
	}
	rel, ok := strings.CutPrefix(p, prefix)
	if w.root == "." && !filepath.IsAbs(p) {
		rel, ok = p, p != ".." && !strings.HasPrefix(p, ".."+string(filepath.Separator))
	}
	if !ok {
		return false
	}
	for {
		part, rest, more := strings.Cut(rel, string(filepath.Separator))
		if !more {
			return true // the file's own name
		}
		if skipDir(part) {
			return false
		}
		rel = rest
	}
}

// followed says p is watched by name already.
func (w *watcher) followed(p string) bool {
	p = filepath.Clean(p)
	return w.files[p] || w.polled[p]
}

// follow watches the file p by name (its directory watched first, then
// the file stamped).
func (w *watcher) follow(p string, stamps Stamps) {
	p = filepath.Clean(p)
	if w.files[p] || w.polled[p] {
		return
	}
	dir := filepath.Dir(p)
	if _, ok := w.byPath[dir]; !ok && w.broken == nil {
		wd, err := syscall.InotifyAddWatch(w.fd, dir, watchMask)
		switch {
		case errors.Is(err, syscall.ENOENT) || errors.Is(err, syscall.ENOTDIR):
			w.polled[p] = true
			if st, ok := stampOf(p); ok {
				stamps[p] = st
			}
			return
		case err != nil:
			w.broken = &os.PathError{Op: "inotify_add_watch", Path: dir, Err: err}
		default:
			d := int32(wd)
			w.dirs[d] = append(w.dirs[d], watchDir{path: dir})
			w.byPath[dir] = d
		}
	}
	w.files[p] = true
	if st, ok := stampOf(p); ok {
		stamps[p] = st
	}
}

// unchanged says the file p is watched and no event named it since
// touched was cleared: a graph read after that holds what it read.
func (w *watcher) unchanged(p string) bool {
	p = filepath.Clean(p)
	return w.broken == nil && !w.touched[p] && !w.polled[p] && (w.files[p] || w.inRegion(p))
}

// errLost is a look's answer when events may have been missed.
var errLost = errors.New("the watch lost events")

// look reads what is queued without blocking and brings stamps up to
// date with it: it reports whether a file the graph was loaded from
// was added, removed or changed (or may have been); an error says the
// watcher can no longer tell (its queue overflowed, a watch could not
// be added, a watched directory outside the walk went away): the
// caller walks instead and builds a new watcher.
func (w *watcher) look(stamps Stamps) (changed bool, err error) {
	if w.broken != nil {
		return false, w.broken
	}
	if w.lose {
		// What an overflowed queue holds: its events dropped, one
		// IN_Q_OVERFLOW in their place.
		w.lose = false
		w.drop()
		return w.event(-1, syscall.IN_Q_OVERFLOW, "", stamps)
	}
	changed, w.pending = w.pending, false
	for p := range w.polled {
		st, ok := stampOf(p)
		if old, was := stamps[p]; ok != was || ok && !old.same(st) {
			changed = true
			setStamp(stamps, p, st, ok)
		}
	}
	if w.buf == nil {
		w.buf = make([]byte, 64<<10)
	}
	for {
		n, err := syscall.Read(w.fd, w.buf)
		if err == syscall.EINTR {
			continue
		}
		if err == syscall.EAGAIN {
			return changed, w.broken
		}
		if err != nil {
			return changed, os.NewSyscallError("read inotify", err)
		}
		if n < syscall.SizeofInotifyEvent {
			return changed, errLost
		}
		for off := 0; off+syscall.SizeofInotifyEvent <= n; {
			ev := (*syscall.InotifyEvent)(unsafe.Pointer(&w.buf[off]))
			name := ""
			if ev.Len > 0 {
				b := w.buf[off+syscall.SizeofInotifyEvent : off+syscall.SizeofInotifyEvent+int(ev.Len)]
				if i := indexNUL(b); i >= 0 {
					b = b[:i]
				}
				name = string(b)
			}
			off += syscall.SizeofInotifyEvent + int(ev.Len)
			c, err := w.event(ev.Wd, ev.Mask, name, stamps)
			if err != nil {
				return changed, err
			}
			changed = changed || c
		}
		if w.broken != nil {
			return changed, w.broken
		}
	}
}

// drop reads and discards what is queued.
func (w *watcher) drop() {
	if w.buf == nil {
		w.buf = make([]byte, 64<<10)
	}
	for {
		if _, err := syscall.Read(w.fd, w.buf); err != nil && err != syscall.EINTR {
			return
		}
	}
}

func indexNUL(b []byte) int {
	for i, c := range b {
		if c == 0 {
			return i
		}
	}
	return -1
}

// event brings stamps up to date with one event (in directory wd, on
// its entry name): whether a file the graph was loaded from changed.
func (w *watcher) event(wd int32, mask uint32, name string, stamps Stamps) (bool, error) {
	if mask&syscall.IN_Q_OVERFLOW != 0 {
		return false, errLost
	}
	dirs := w.dirs[wd]
	if mask&syscall.IN_IGNORED != 0 {
		// The watch is gone: removed by look (a directory renamed) or
		// by the system (the directory deleted).
		w.forget(wd)
		for _, d := range dirs {
			if !d.region || d.path == w.root {
				return false, errLost
			}
		}
		return false, nil
	}
	if mask&(syscall.IN_DELETE_SELF|syscall.IN_MOVE_SELF) != 0 {
		// A directory of the region is followed by its parent's event;
		// the root and the directories outside are not.
		for _, d := range dirs {
			if !d.region || d.path == w.root {
				return false, errLost
			}
		}
		return false, nil
	}
	changed := false
	for _, d := range dirs {
		p := filepath.Join(d.path, name)
		switch {
		case mask&syscall.IN_ISDIR != 0:
			if !d.region || skipDir(name) {
				continue
			}
			if mask&(syscall.IN_DELETE|syscall.IN_MOVED_FROM) != 0 {
				c, err := w.unwatch(p, stamps)
				if err != nil {
					return changed, err
				}
				changed = c || changed
			}
			if mask&(syscall.IN_CREATE|syscall.IN_MOVED_TO) != 0 {
				// Files made in it before its watch are found by the walk.
				changed = w.walk(p, stamps, true) || changed
			}
		case d.region && strings.HasSuffix(name, spec.Suffix) || w.files[p]:
			w.touched[p] = true
			st, ok := stampOf(p)
			if ok && d.region && !w.files[p] && !regular(p) {
				ok = false // as the walk: not a regular file, not a node file
			}
			if old, was := stamps[p]; ok != was || ok && !old.same(st) {
				changed = true
			}
			// Written, or another file put in its place: changed even
			// where its stamp shows nothing (a write within the clock's
			// grain, of the same size).
			if ok && mask&(syscall.IN_MODIFY|syscall.IN_CLOSE_WRITE|syscall.IN_CREATE|syscall.IN_MOVED_TO) != 0 {
				changed = true
			}
			setStamp(stamps, p, st, ok)
		}
	}
	return changed, nil
}

// unwatch forgets the directory dir of the region and everything under
// it (removed or renamed away): their watches are removed and their
// files' stamps dropped. It reports whether any was a file the graph
// was loaded from; a directory under it watched for a file read from
// outside the region is a loss (the file may come back elsewhere).
func (w *watcher) unwatch(dir string, stamps Stamps) (bool, error) {
	prefix := dir + string(filepath.Separator)
	for p, wd := range w.byPath {
		if p == dir || strings.HasPrefix(p, prefix) {
			for _, d := range w.dirs[wd] {
				if !d.region {
					return false, errLost
				}
			}
			syscall.InotifyRmWatch(w.fd, uint32(wd))
			w.forget(wd)
		}
	}
	changed := false
	for p := range stamps {
		if strings.HasPrefix(p, prefix) && !w.files[p] {
			delete(stamps, p)
			w.touched[p] = true
			changed = true
		}
	}
	return changed, nil
}

// forget drops the spellings of watch wd.
func (w *watcher) forget(wd int32) {
	for _, d := range w.dirs[wd] {
		if w.byPath[d.path] == wd {
			delete(w.byPath, d.path)
		}
	}
	delete(w.dirs, wd)
}

// ready starts waiting for the inotify instance to have events to read
// (none are read: the next look reads them). The channel is closed when
// it has; stop ends the wait and must be called once. Without an
// instance the channel is nil (it never fires).
func (w *watcher) ready() (<-chan struct{}, func()) {
	if w == nil || w.fd < 0 || w.broken != nil {
		return nil, func() {}
	}
	// A descriptor of its own for the runtime's poller (the instance is
	// non-blocking, so os.NewFile puts it there), closed by stop while
	// the watcher keeps its own.
	fd, _, errno := syscall.Syscall(syscall.SYS_FCNTL, uintptr(w.fd), syscall.F_DUPFD_CLOEXEC, 0)
	if errno != 0 {
		return nil, func() {}
	}
	f := os.NewFile(fd, "inotify")
	rc, err := f.SyscallConn()
	if err != nil {
		f.Close()
		return nil, func() {}
	}
	ch, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		first := true
		err := rc.Read(func(fd uintptr) bool {
			var n int32
			_, _, errno := syscall.Syscall(syscall.SYS_IOCTL, fd, fionread, uintptr(unsafe.Pointer(&n)))
			if errno != 0 {
				// No count here: the poller's word that it became
				// readable, after the first try, is the answer.
				ok := !first
				first = false
				return ok
			}
			return n > 0
		})
		if err == nil {
			close(ch)
		}
	}()
	return ch, func() {
		f.SetReadDeadline(time.Unix(1, 0))
		<-done
		f.Close()
	}
}

// fionread is the ioctl that says how many bytes a descriptor has to
// read (FIONREAD; the syscall package does not name it).
const fionread = 0x541B
