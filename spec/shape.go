package spec

import (
	"strings"

	"github.com/proselang/prose/diag"
)

// shape reads the `self`, `delegates` and `prohibited` bullets.
func (l *loader) shape(sec *section) {
	sh := &Shape{Pos: sec.Pos}
	l.s.Shape = sh
	for _, li := range items(sec) {
		t, pos, ok := l.itemText(li)
		if !ok {
			continue
		}
		k, v, at, ok := keyed(t)
		if !ok {
			continue
		}
		switch strings.ToLower(k) {
		case "self":
			sh.Self = v
		case "prohibited":
			sh.Prohibited = v
		case "delegates":
			for _, sub := range subItems(li) {
				if st, spos, ok := l.itemText(sub); ok {
					l.delegate(sh, st, spos)
				}
			}
			if v != "" { // `delegates`: `a`, `b` on one line
				l.inlineDelegates(sh, v, pos+at)
			}
		}
	}
}

func (l *loader) delegate(sh *Shape, t string, pos int) {
	name, role, ok := delegateHead(t)
	if !ok {
		return
	}
	d := &Delegate{Name: name, Role: role, Pos: diag.Pos(pos + strings.Index(t, name)), Range: strings.Contains(name, "..")}
	sh.Delegates = append(sh.Delegates, d)
}

// delegateHead splits "`name`: role" (the name may be a range a_1..a_N).
func delegateHead(t string) (name, role string, ok bool) {
	if strings.HasPrefix(t, "`") {
		end := strings.IndexByte(t[1:], '`')
		if end < 0 {
			return "", "", false
		}
		name = t[1 : 1+end]
		role = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(t[2+end:]), ":"))
	} else {
		var found bool
		name, role, found = strings.Cut(t, ":")
		if !found {
			name, role = t, ""
		}
		name, role = strings.TrimSpace(name), strings.TrimSpace(role)
	}
	if !isDelegateName(name) {
		return "", "", false
	}
	return name, role, true
}

func isDelegateName(n string) bool {
	a, b, isRange := strings.Cut(n, "..")
	if isRange {
		return isIdent(a) && isIdent(b)
	}
	return isIdent(n)
}

// inlineDelegates reads backticked names from "`a`, `b`" after delegates:.
func (l *loader) inlineDelegates(sh *Shape, v string, base int) {
	for off := 0; ; {
		i := strings.IndexByte(v[off:], '`')
		if i < 0 {
			return
		}
		j := strings.IndexByte(v[off+i+1:], '`')
		if j < 0 {
			return
		}
		name := v[off+i+1 : off+i+1+j]
		if isDelegateName(name) {
			sh.Delegates = append(sh.Delegates, &Delegate{Name: name, Pos: diag.Pos(base + off + i + 1), Range: strings.Contains(name, "..")})
		}
		off += i + j + 2
	}
}

// checkShape matches delegates to slots: a range matches the list-valued
// slot whose name shares its prefix (stage_1..stage_N -> stages), else the
// only list-valued slot. It reports delegates naming no slot and slots no
// delegate mentions. Without a Slots section there is nothing to match:
// the missing section is the one finding, not every delegate.
func (l *loader) checkShape() {
	sh := l.s.Shape
	if sh == nil || len(sh.Delegates) == 0 || !l.hasSection("slots") {
		return
	}
	mentioned := map[string]bool{}
	for _, d := range sh.Delegates {
		if d.Range {
			d.Slot = l.rangeSlot(d.Name)
		} else if l.slot(d.Name) != nil {
			d.Slot = d.Name
		}
		if d.Slot == "" {
			what := "slot"
			if d.Range {
				what = "list-valued slot"
			}
			l.errorf(int(d.Pos), CodeShapeUndeclared, "Shape delegates %q, but no such %s is declared in Slots", d.Name, what)
			continue
		}
		mentioned[d.Slot] = true
	}
	for _, s := range l.s.Slots {
		if !mentioned[s.Name] {
			l.warnf(int(s.Pos), CodeShapeMissing, "slot %q is not listed under Shape delegates", s.Name)
		}
	}
}

func (l *loader) rangeSlot(name string) string {
	first, _, _ := strings.Cut(name, "..")
	prefix := strings.TrimRight(first, "0123456789")
	prefix = strings.TrimRight(prefix, "_")
	var only string
	lists := 0
	for _, s := range l.s.Slots {
		if !s.List {
			continue
		}
		lists++
		only = s.Name
		if prefix != "" && strings.HasPrefix(s.Name, prefix) {
			return s.Name
		}
	}
	if lists == 1 {
		return only
	}
	return ""
}

func (l *loader) slot(name string) *Slot {
	for _, s := range l.s.Slots {
		if s.Name == name {
			return s
		}
	}
	return nil
}

// hasSection reports whether the file has a section with the given key.
func (l *loader) hasSection(key string) bool {
	for _, sec := range l.sections {
		if sec.Key == key {
			return true
		}
	}
	return false
}
