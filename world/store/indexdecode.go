package store

import (
	"strconv"
	"unicode/utf8"

	"github.com/proselang/prose/world/receipt"
)

// The index's own decoder (decided): a process that opens the store for
// each drain reads every line of DIR/index.jsonl, and encoding/json's
// reflection was most of that read. quickEntry decodes the JSON the
// index writes itself, and nothing else: exactly the members named in
// FORMAT.md, each at most once, strings in valid UTF-8 without
// surrogate escapes, integers without fraction or exponent, no null
// inside a map or a list. Anything outside that subset (a member it
// does not know, a key in another case, a surrogate escape, a
// duplicate) declines, and the line is read by encoding/json as before,
// so that what a line means never depends on which decoder read it
// (FuzzQuickEntry holds them to the same result). The checksum is
// checked before either.

// quickEntry decodes body into e (which must be zero) and reports
// whether it could; false leaves e in any state.
func quickEntry(body []byte, e *indexEntry) bool {
	return readEntry(body, e, false)
}

// readEntry is quickEntry; lazy leaves the entry's receipts undecoded
// (lazyReceipt), each checked as it would be decoded.
func readEntry(body []byte, e *indexEntry, lazy bool) bool {
	d := jdec{b: body}
	d.entry(e, lazy)
	d.ws()
	return !d.bad && d.i == len(d.b)
}

type jdec struct {
	b   []byte
	i   int
	bad bool
	// skip: check what is read as when decoding it, but keep only the
	// members a receipt's summary holds (lazyReceipt).
	skip bool
}

func (d *jdec) fail() { d.bad = true }

func (d *jdec) ws() {
	for d.i < len(d.b) {
		switch d.b[d.i] {
		case ' ', '\t', '\n', '\r':
			d.i++
		default:
			return
		}
	}
}

// peek is the next byte after white space (0 at the end).
func (d *jdec) peek() byte {
	d.ws()
	if d.i < len(d.b) {
		return d.b[d.i]
	}
	return 0
}

func (d *jdec) expect(c byte) {
	if d.bad || d.peek() != c {
		d.fail()
		return
	}
	d.i++
}

// null consumes a null and reports whether there was one.
func (d *jdec) null() bool {
	if d.bad || d.peek() != 'n' {
		return false
	}
	if len(d.b)-d.i < 4 || string(d.b[d.i:d.i+4]) != "null" {
		d.fail()
		return false
	}
	d.i += 4
	return true
}

// raw is a string's bytes: its escapes (json.Marshal writes '<', '>',
// '&' and control bytes as \u escapes) read, declining a surrogate
// escape and invalid UTF-8, which encoding/json would replace.
func (d *jdec) raw() []byte {
	d.expect('"')
	if d.bad {
		return nil
	}
	start, ascii := d.i, true
	var out []byte // once an escape was read
	for d.i < len(d.b) {
		c := d.b[d.i]
		if plainByte[c] {
			d.i++
			continue
		}
		switch {
		case c == '"':
			s := d.b[start:d.i]
			d.i++
			if out != nil {
				s = append(out, s...)
			}
			if !ascii && !utf8.Valid(s) {
				d.fail()
			}
			return s
		case c == '\\':
			out = append(out, d.b[start:d.i]...)
			if d.i+1 >= len(d.b) {
				d.fail()
				return nil
			}
			d.i += 2
			switch e := d.b[d.i-1]; e {
			case '"', '\\', '/':
				out = append(out, e)
			case 'b':
				out = append(out, '\b')
			case 'f':
				out = append(out, '\f')
			case 'n':
				out = append(out, '\n')
			case 'r':
				out = append(out, '\r')
			case 't':
				out = append(out, '\t')
			case 'u':
				if len(d.b)-d.i < 4 {
					d.fail()
					return nil
				}
				v, err := strconv.ParseUint(string(d.b[d.i:d.i+4]), 16, 16)
				if err != nil || v >= 0xD800 && v < 0xE000 {
					d.fail()
					return nil
				}
				out = utf8.AppendRune(out, rune(v))
				d.i += 4
			default:
				d.fail()
				return nil
			}
			start = d.i
			continue
		case c < 0x20:
			d.fail()
			return nil
		case c >= 0x80:
			ascii = false
		}
		d.i++
	}
	d.fail()
	return nil
}

// plainByte: the bytes a string holds as they are, printable ASCII but
// the quote and the backslash.
var plainByte = func() (t [256]bool) {
	for c := 0x20; c < 0x80; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

func (d *jdec) str() string {
	if d.skip {
		d.raw()
		return ""
	}
	return string(d.raw())
}

// kept is a string read even when skipping (a summary's member).
func (d *jdec) kept() string { return string(d.raw()) }

// number is an integer's digits (a leading minus when signed).
func (d *jdec) number(signed bool) []byte {
	if d.bad {
		return nil
	}
	d.ws()
	start := d.i
	if signed && d.i < len(d.b) && d.b[d.i] == '-' {
		d.i++
	}
	digits := d.i
	for d.i < len(d.b) && d.b[d.i] >= '0' && d.b[d.i] <= '9' {
		d.i++
	}
	n := d.i - digits
	if n == 0 || n > 1 && d.b[digits] == '0' {
		d.fail()
		return nil
	}
	if d.i < len(d.b) {
		switch d.b[d.i] {
		case '.', 'e', 'E':
			d.fail()
			return nil
		}
	}
	return d.b[start:d.i]
}

func (d *jdec) int64v(bits int) int64 {
	s := d.number(true)
	if d.bad {
		return 0
	}
	v, err := strconv.ParseInt(string(s), 10, bits)
	if err != nil {
		d.fail()
	}
	return v
}

func (d *jdec) intv() int { return int(d.int64v(strconv.IntSize)) }

func (d *jdec) uint64v() uint64 {
	s := d.number(false)
	if d.bad {
		return 0
	}
	v, err := strconv.ParseUint(string(s), 10, 64)
	if err != nil {
		d.fail()
	}
	return v
}

// object calls member with each key of an object, the decoder at its
// value, declining a key seen twice (bit is the key's place among those
// member knows, -1 when it knows none: then the object declines).
func (d *jdec) object(member func(key []byte) int) {
	d.expect('{')
	if d.bad {
		return
	}
	if d.peek() == '}' {
		d.i++
		return
	}
	var seen uint64
	for !d.bad {
		k := d.raw()
		d.expect(':')
		if d.bad {
			return
		}
		bit := member(k)
		if bit < 0 || seen&(1<<bit) != 0 {
			d.fail()
			return
		}
		seen |= 1 << bit
		switch d.peek() {
		case ',':
			d.i++
		case '}':
			d.i++
			return
		default:
			d.fail()
		}
	}
}

// strMap is a map of strings: nil for null, never a null value.
func (d *jdec) strMap() map[string]string {
	if d.null() {
		return nil
	}
	m := map[string]string{}
	if d.skip {
		m = nil
	}
	d.expect('{')
	if d.bad {
		return nil
	}
	if d.peek() == '}' {
		d.i++
		return m
	}
	for !d.bad {
		k := d.str()
		d.expect(':')
		v := d.str()
		if d.bad {
			return nil
		}
		if m != nil {
			m[k] = v
		}
		switch d.peek() {
		case ',':
			d.i++
		case '}':
			d.i++
			return m
		default:
			d.fail()
		}
	}
	return nil
}

// strList is a list of strings: nil for null, never a null element.
func (d *jdec) strList() []string {
	if d.null() {
		return nil
	}
	l := []string{}
	if d.skip {
		l = nil
	}
	d.expect('[')
	if d.bad {
		return nil
	}
	if d.peek() == ']' {
		d.i++
		return l
	}
	for !d.bad {
		if v := d.str(); !d.skip {
			l = append(l, v)
		}
		switch d.peek() {
		case ',':
			d.i++
		case ']':
			d.i++
			return l
		default:
			d.fail()
		}
	}
	return nil
}

func (d *jdec) fileID(id *fileID) {
	if d.null() {
		return
	}
	d.object(func(k []byte) int {
		switch string(k) {
		case "size":
			id.Size = d.int64v(64)
			return 0
		case "mod":
			id.Mod = d.int64v(64)
			return 1
		case "change":
			id.Change = d.int64v(64)
			return 2
		case "ino":
			id.Ino = d.uint64v()
			return 3
		}
		return -1
	})
}

func (d *jdec) fileIDs() map[string]fileID {
	if d.null() {
		return nil
	}
	m := map[string]fileID{}
	d.expect('{')
	if d.bad {
		return nil
	}
	if d.peek() == '}' {
		d.i++
		return m
	}
	for !d.bad {
		k := d.str()
		d.expect(':')
		if d.bad || d.peek() == 'n' {
			d.fail() // null, or a key seen twice, would mean more than a value
			return nil
		}
		if _, dup := m[k]; dup {
			d.fail()
			return nil
		}
		var id fileID
		d.fileID(&id)
		m[k] = id
		switch d.peek() {
		case ',':
			d.i++
		case '}':
			d.i++
			return m
		default:
			d.fail()
		}
	}
	return nil
}

func (d *jdec) scan() *Scan {
	if d.null() {
		return nil
	}
	sc := &Scan{}
	d.object(func(k []byte) int {
		switch string(k) {
		case "last":
			sc.Last = d.str()
			return 0
		case "contract":
			sc.Contract = d.str()
			return 1
		case "shape":
			sc.Shape = d.str()
			return 2
		case "key":
			sc.Key = d.str()
			return 3
		case "inputs":
			sc.Inputs = d.strMap()
			return 4
		case "spec":
			sc.Spec = d.str()
			return 5
		}
		return -1
	})
	return sc
}

func (d *jdec) receipt() *receipt.Receipt {
	if d.null() {
		return nil
	}
	r := &receipt.Receipt{}
	d.object(func(k []byte) int {
		switch string(k) {
		case "format":
			r.Format = d.str()
			return 0
		case "node":
			r.Node = d.kept()
			return 1
		case "drain":
			r.Drain = d.intv()
			return 2
		case "seq":
			r.Seq = d.intv()
			return 3
		case "contract":
			r.Contract = d.str()
			return 4
		case "wake":
			if !d.null() {
				d.object(func(k []byte) int {
					switch string(k) {
					case "source":
						r.Wake.Source = d.str()
						return 0
					case "refs":
						r.Wake.Refs = d.strList()
						return 1
					}
					return -1
				})
			}
			return 5
		case "inputs":
			r.Inputs = d.strMap()
			return 6
		case "events":
			r.Events = d.str()
			return 7
		case "memo":
			r.Memo = d.str()
			return 8
		case "facets":
			r.Facets = d.strMap()
			return 9
		case "version":
			r.Version = d.kept()
			return 10
		case "diff":
			if !d.null() {
				d.object(func(k []byte) int {
					switch string(k) {
					case "moved":
						r.Diff.Moved = d.strList()
						return 0
					case "fields":
						r.Diff.Fields = d.strList()
						return 1
					}
					return -1
				})
			}
			return 11
		case "prev":
			r.Prev = d.str()
			return 12
		case "status":
			r.Status = receipt.Status(d.kept())
			return 13
		case "reason":
			r.Reason = d.str()
			return 14
		case "cost":
			if !d.null() {
				d.cost(&r.Cost)
			}
			return 15
		case "run":
			r.Run = d.str()
			return 16
		case "hash":
			r.Hash = d.kept()
			return 17
		case "sig":
			r.Sig = d.str()
			return 18
		case "key":
			r.Key = d.str()
			return 19
		}
		return -1
	})
	return r
}

func (d *jdec) cost(c *receipt.Cost) {
	d.object(func(k []byte) int {
		switch string(k) {
		case "requests":
			c.Requests = d.intv()
			return 0
		case "tokens_in":
			c.TokensIn = d.intv()
			return 1
		case "tokens_out":
			c.TokensOut = d.intv()
			return 2
		case "programs":
			c.Programs = d.intv()
			return 3
		case "model":
			c.Model = d.str()
			return 4
		case "duration_ms":
			c.DurationMS = d.int64v(64)
			return 5
		}
		return -1
	})
}

func (d *jdec) entry(e *indexEntry, lazy bool) {
	d.object(func(k []byte) int {
		switch string(k) {
		case "node":
			e.Node = d.str()
			return 0
		case "ledger":
			d.fileID(&e.Ledger)
			return 1
		case "head":
			d.fileID(&e.Head)
			return 2
		case "last":
			if lazy {
				e.lazyLast = d.lazyReceipt()
			} else {
				e.Last = d.receipt()
			}
			return 3
		case "last_ok":
			if lazy {
				e.lazyLastOK = d.lazyReceipt()
			} else {
				e.LastOK = d.receipt()
			}
			return 4
		case "published":
			e.Published = d.fileIDs()
			return 5
		case "published_for":
			e.PublishedFor = d.str()
			return 6
		case "scan":
			e.Scan = d.scan()
			return 7
		case "trust":
			e.Trust = d.str()
			return 8
		case "ok_end":
			e.OKEnd = d.int64v(64)
			return 9
		}
		return -1
	})
}

// A lazyReceipt is a receipt of an index line not decoded yet (decided):
// a drain that opens the store reads every entry, and most nodes of a
// drain that moved little need no more of their receipts than the
// summary kept here (the stale scan compares hashes and versions). The
// line was read through to its end by the same decoder with skip set,
// which takes the same path through the same bytes as decoding them and
// declines exactly what decoding declines; so decode, later, reads what
// an eager decode of the line would have, and cannot fail.
type lazyReceipt struct {
	raw                         []byte
	node, hash, version, status string
	drain                       int
}

// lazyReceipt reads a receipt (or null: nil) as receipt does, keeping
// its bytes and summary.
func (d *jdec) lazyReceipt() *lazyReceipt {
	if d.null() {
		return nil
	}
	start := d.i
	d.skip = true
	r := d.receipt()
	d.skip = false
	if d.bad {
		return nil
	}
	return &lazyReceipt{raw: d.b[start:d.i], node: r.Node, hash: r.Hash, version: r.Version, status: string(r.Status), drain: r.Drain}
}

// decode is the receipt l holds (false: its bytes do not read, which
// readEntry rules out).
func (l *lazyReceipt) decode() (*receipt.Receipt, bool) {
	d := jdec{b: l.raw}
	r := d.receipt()
	d.ws()
	return r, !d.bad && d.i == len(d.b)
}
