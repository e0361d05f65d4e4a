package journal

import (
	"bytes"
	"strconv"
	"unicode/utf8"

	"github.com/proselang/prose/delegation"
)

// scanIndexed reads, from the JSON line of a record, the fields the index
// of a resume or replay reads as it is built (indexer.keep), when the
// record is one the index never holds (a call's start or end, a judgment,
// a group) and nothing in it may refer to a withheld secret: it scans the
// line once, skipping the values it does not need (a result, arguments,
// times), where encoding/json would check and decode all of them. The
// index reads the record whole when it answers from it (index.load).
//
// It reports false, and the line is decoded whole, whenever it is not
// sure to read what encoding/json would: a key that is not plain lower
// case ASCII (encoding/json matches keys without regard to case), a
// string of a field it reads that holds an escape or is not UTF-8, a \u escape anywhere
// (a secret's reference could hide in one), a number that is not an int,
// a null, or a line that is not one JSON object. The values it skips are
// not checked: the digest chain vouches for the line, and a record the
// index answers from is decoded, and checked, when it answers.
func scanIndexed(line []byte) (*Record, bool) {
	return scanIndexedInto(line, new(Record), true)
}

// scanIndexedInto is scanIndexed reading into rec (zeroed first): an
// index reads every line of a journal into one Record, which it copies
// only when it keeps it (Log.parseLine, indexer.keep). Without pos, as a
// replay's index reads a line, its position is skipped, unread, and its
// id is checked (pathKey) and left in the line (rec.idKey), not parsed.
func scanIndexedInto(line []byte, rec *Record, pos bool) (*Record, bool) {
	if bytes.Contains(line, []byte(`\u`)) || bytes.Contains(line, []byte(secretMark)) {
		return nil, false
	}
	s := scanner{b: line}
	s.ws()
	if !s.eat('{') {
		return nil, false
	}
	*rec = Record{}
	s.ws()
	if s.eat('}') {
		return nil, false // no type
	}
	for {
		s.ws()
		key, ok := s.rawKey()
		if !ok {
			return nil, false
		}
		s.ws()
		if !s.eat(':') {
			return nil, false
		}
		s.ws()
		switch string(key) {
		case "t":
			ok = s.typ(&rec.Type)
		case "id":
			if !pos {
				// A replay's index hashes the key as the line spells it
				// (indexer.keep): checked, not parsed.
				rec.idKey, ok = s.raw()
				ok = ok && pathKey(rec.idKey)
				break
			}
			var id string
			if ok = s.str(&id); ok {
				var p delegation.Path
				ok = p.UnmarshalText([]byte(id)) == nil
				rec.ID = p
			}
		case "pos":
			if pos {
				ok = s.str(&rec.Pos)
			} else {
				ok = s.skip(0)
			}
		case "attempt":
			ok = s.int(&rec.Attempt)
		case "err":
			ok = s.str(&rec.Err)
		case "kind":
			ok = s.str(&rec.Kind)
		case "n":
			ok = s.int(&rec.N)
		case "cond":
			ok = s.str(&rec.Cond)
		case "values":
			ok = s.str(&rec.Values)
		case "model":
			ok = s.str(&rec.Model)
		case "rule":
			ok = s.str(&rec.Rule)
		case "pick":
			ok = s.str(&rec.Pick) // a choice's record is no verdict for the memo
		case "fail_closed":
			ok = s.bool(&rec.FailClosed)
		case "pgid":
			ok = s.int(&rec.PGID)
		case "proc":
			ok = s.str(&rec.Proc)
		default:
			ok = s.skip(0)
		}
		if !ok {
			return nil, false
		}
		s.ws()
		if s.eat(',') {
			continue
		}
		if !s.eat('}') {
			return nil, false
		}
		break
	}
	s.ws()
	if s.i != len(s.b) || !indexedOnly(rec.Type) {
		return nil, false
	}
	return rec, true
}

// scanAnswer reads the record a resume or a replay answers a call or a
// judgment from (index.load), as scanIndexed reads what the index needs:
// every field an answer reads, the result as the raw JSON it is (decoded
// when it answers, delegation.FromJSON).
// It reports false, and the record is decoded by encoding/json, for
// anything it is not sure to read as encoding/json would (see
// scanIndexed) and for a field it does not read (a nested error, a
// group's iterations, a gate).
func scanAnswer(line []byte) (*Record, bool) {
	if bytes.Contains(line, []byte(`\u`)) || bytes.Contains(line, []byte(secretMark)) {
		return nil, false
	}
	s := scanner{b: line}
	s.ws()
	if !s.eat('{') {
		return nil, false
	}
	rec := &Record{}
	s.ws()
	if s.eat('}') {
		return nil, false
	}
	for {
		s.ws()
		key, ok := s.key()
		if !ok {
			return nil, false
		}
		s.ws()
		if !s.eat(':') {
			return nil, false
		}
		s.ws()
		switch key {
		case "t":
			ok = s.str(&rec.Type)
		case "id":
			var id string
			if ok = s.str(&id); ok {
				var p delegation.Path
				ok = p.UnmarshalText([]byte(id)) == nil
				rec.ID = p
			}
		case "pos":
			ok = s.str(&rec.Pos)
		case "attempt":
			ok = s.int(&rec.Attempt)
		case "slot":
			ok = s.str(&rec.Slot)
		case "args":
			ok = s.str(&rec.Args)
		case "result":
			start := s.i
			if ok = s.skip(0) && validRaw(line[start:s.i]); ok {
				rec.Result = line[start:s.i:s.i]
			}
		case "err":
			ok = s.str(&rec.Err)
		case "kind":
			ok = s.str(&rec.Kind)
		case "catchable":
			ok = s.bool(&rec.Catchable)
		case "n":
			ok = s.int(&rec.N)
		case "cond":
			ok = s.str(&rec.Cond)
		case "values":
			ok = s.str(&rec.Values)
		case "holds":
			var h bool
			if ok = s.bool(&h); ok {
				rec.Holds = &h
			}
		case "pick":
			ok = s.str(&rec.Pick)
		case "reasoning":
			ok = s.str(&rec.Reasoning)
		case "asked":
			ok = s.bool(&rec.Asked)
		case "model":
			ok = s.str(&rec.Model)
		case "rule":
			ok = s.str(&rec.Rule)
		case "tokens_in":
			ok = s.int(&rec.TokensIn)
		case "tokens_out":
			ok = s.int(&rec.TokensOut)
		case "fail_closed":
			ok = s.bool(&rec.FailClosed)
		case "pgid":
			ok = s.int(&rec.PGID)
		case "proc":
			ok = s.str(&rec.Proc)
		case "time":
			start := s.i
			ok = s.skip(0) && rec.Time.UnmarshalJSON(line[start:s.i]) == nil
		case "ms":
			start := s.i
			if ok = s.skip(0); ok && string(line[start:s.i]) != "null" {
				var err error
				rec.MS, err = strconv.ParseFloat(string(line[start:s.i]), 64)
				ok = err == nil
			}
		case "sum":
			ok = s.skip(0)
		default:
			return nil, false
		}
		if !ok {
			return nil, false
		}
		s.ws()
		if s.eat(',') {
			continue
		}
		if !s.eat('}') {
			return nil, false
		}
		break
	}
	s.ws()
	if s.i != len(s.b) || rec.Type != TypeEnd && rec.Type != TypeJudge {
		return nil, false
	}
	return rec, true
}

// indexedOnly reports whether records of type t are indexed and never
// held by a Log that indexes its journal (see indexer.keep) unless they
// refer to a withheld secret.
func indexedOnly(t string) bool {
	switch t {
	case TypeStart, TypeEnd, TypeJudge, TypeGroup, TypeFirst:
		return true
	}
	return false
}

// scanner reads a JSON line from b at i.
type scanner struct {
	b []byte
	i int
}

func (s *scanner) ws() {
	for s.i < len(s.b) && (s.b[s.i] == ' ' || s.b[s.i] == '\t' || s.b[s.i] == '\n' || s.b[s.i] == '\r') {
		s.i++
	}
}

func (s *scanner) eat(c byte) bool {
	if s.i < len(s.b) && s.b[s.i] == c {
		s.i++
		return true
	}
	return false
}

// key reads a key of lower case ASCII letters, digits and underscores.
func (s *scanner) key() (string, bool) {
	if !s.eat('"') {
		return "", false
	}
	start := s.i
	for s.i < len(s.b) {
		c := s.b[s.i]
		switch {
		case c == '"':
			k := string(s.b[start:s.i])
			s.i++
			return k, true
		case c >= 'a' && c <= 'z', c >= '0' && c <= '9', c == '_':
			s.i++
		default:
			return "", false
		}
	}
	return "", false
}

// str reads a string without escapes.
func (s *scanner) str(dst *string) bool {
	if !s.eat('"') {
		return false
	}
	start := s.i
	for s.i < len(s.b) {
		c := s.b[s.i]
		switch {
		case c == '"':
			if !utf8.Valid(s.b[start:s.i]) {
				return false // encoding/json would replace what is not UTF-8
			}
			*dst = string(s.b[start:s.i])
			s.i++
			return true
		case c == '\\' || c < 0x20:
			return false
		}
		s.i++
	}
	return false
}

// int reads an integer as encoding/json reads one into an int.
func (s *scanner) int(dst *int) bool {
	start := s.i
	if s.i < len(s.b) && s.b[s.i] == '-' {
		s.i++
	}
	digits := s.i
	for s.i < len(s.b) && s.b[s.i] >= '0' && s.b[s.i] <= '9' {
		s.i++
	}
	if s.i == digits || s.i-digits > 1 && s.b[digits] == '0' {
		return false
	}
	if s.i < len(s.b) && (s.b[s.i] == '.' || s.b[s.i] == 'e' || s.b[s.i] == 'E') {
		return false
	}
	n, err := strconv.Atoi(string(s.b[start:s.i]))
	if err != nil {
		return false
	}
	*dst = n
	return true
}

func (s *scanner) bool(dst *bool) bool {
	switch {
	case bytes.HasPrefix(s.b[s.i:], []byte("true")):
		s.i += 4
		*dst = true
	case bytes.HasPrefix(s.b[s.i:], []byte("false")):
		s.i += 5
		*dst = false
	default:
		return false
	}
	return true
}

// skip passes over one value (a string, an object, an array, a number or
// a literal) without decoding it, depth levels deep already.
func (s *scanner) skip(depth int) bool {
	if depth > 10000 || s.i >= len(s.b) {
		return false
	}
	switch c := s.b[s.i]; {
	case c == '"':
		// The closing quote is the first one not escaped: found a run
		// of plain bytes at a time.
		s.i++
		for s.i < len(s.b) {
			j := bytes.IndexByte(s.b[s.i:], '"')
			if j < 0 {
				return false
			}
			if k := bytes.IndexByte(s.b[s.i:s.i+j], '\\'); k >= 0 {
				s.i += k + 2 // past the escape and the byte it escapes
				continue
			}
			s.i += j + 1
			return true
		}
		return false
	case c == '{' || c == '[':
		end := byte('}')
		if c == '[' {
			end = ']'
		}
		s.i++
		s.ws()
		if s.eat(end) {
			return true
		}
		for {
			s.ws()
			if c == '{' {
				if s.i >= len(s.b) || s.b[s.i] != '"' || !s.skip(depth+1) {
					return false // a key is a string
				}
				s.ws()
				if !s.eat(':') {
					return false
				}
				s.ws()
			}
			if !s.skip(depth + 1) {
				return false
			}
			s.ws()
			if s.eat(',') {
				continue
			}
			return s.eat(end)
		}
	default:
		start := s.i
		for s.i < len(s.b) {
			c := s.b[s.i]
			if c == ',' || c == '}' || c == ']' || c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == ':' || c == '"' || c == '{' || c == '[' {
				break
			}
			s.i++
		}
		if s.i == start {
			return false
		}
		switch lit := string(s.b[start:s.i]); lit {
		case "null", "true", "false":
			return true
		default:
			_, err := strconv.ParseFloat(lit, 64)
			return err == nil
		}
	}
}

// digests are a record's "args" and "values" as its line spells them
// (scanReply): an answer compares them with its own without a copy.
type digests struct{ args, values []byte }

// scanReply reads into rec (zeroed first), from the JSON line of a
// call's "end" record or of a judgment's, what answering from it reads
// (answerCall, decodeOutcome, judger.answer), when its id is want: a
// resume or a replay reads each such record back as it answers from it,
// after the index pass checked its digest. It reads less than
// scanAnswer: the id is compared with want's key, not parsed; the time,
// position, slot, duration, condition, fail-closed flag, process group
// and digest are skipped unchecked, as scanIndexed skips what it does
// not read (the digest chain vouches for the line); the result is kept
// as the raw JSON it is, checked when it is decoded (decodeResult); the
// arguments' and values' digests are left in the line, in d, not in
// rec.
// It reports false, and the record is read whole (index.load), for
// another id, a line that holds a large value's stub, and whatever
// scanIndexed leaves to encoding/json (an escape in a string it reads, a
// \u escape anywhere, a reference to a secret, a key that is not plain
// lower case ASCII, a number that is not an int) or that it does not
// read (a nested error).
func scanReply(line []byte, want delegation.Path, rec *Record, d *digests) bool {
	if bytes.HasPrefix(line, []byte(blobsKey)) || bytes.Contains(line, []byte(`\u`)) || bytes.Contains(line, []byte(secretMark)) {
		return false
	}
	*d = digests{}
	s := scanner{b: line}
	s.ws()
	if !s.eat('{') {
		return false
	}
	*rec = Record{}
	s.ws()
	if s.eat('}') {
		return false
	}
	for {
		s.ws()
		key, ok := s.rawKey()
		if !ok {
			return false
		}
		s.ws()
		if !s.eat(':') {
			return false
		}
		s.ws()
		switch string(key) {
		case "t":
			var t []byte
			if t, ok = s.raw(); ok {
				switch string(t) {
				case TypeEnd:
					rec.Type = TypeEnd
				case TypeJudge:
					rec.Type = TypeJudge
				default:
					return false
				}
			}
		case "id":
			var id []byte
			if id, ok = s.raw(); ok {
				if string(id) != want.Key() || want.IsZero() {
					return false
				}
				rec.ID = want
			}
		case "attempt":
			ok = s.int(&rec.Attempt)
		case "n":
			ok = s.int(&rec.N)
		case "args":
			d.args, ok = s.raw()
		case "values":
			d.values, ok = s.raw()
		case "result":
			start := s.i
			if ok = s.skip(0); ok {
				rec.Result = line[start:s.i:s.i]
			}
		case "err":
			ok = s.str(&rec.Err)
		case "kind":
			ok = s.str(&rec.Kind)
		case "catchable":
			ok = s.bool(&rec.Catchable)
		case "holds":
			var h bool
			if ok = s.bool(&h); ok {
				rec.Holds = &h
			}
		case "pick":
			ok = s.str(&rec.Pick)
		case "reasoning":
			ok = s.str(&rec.Reasoning)
		case "asked":
			ok = s.bool(&rec.Asked)
		case "model":
			ok = s.str(&rec.Model)
		case "rule":
			ok = s.str(&rec.Rule)
		case "tokens_in":
			ok = s.int(&rec.TokensIn)
		case "tokens_out":
			ok = s.int(&rec.TokensOut)
		case "time", "pos", "slot", "ms", "cond", "fail_closed", "pgid", "proc", "sum":
			ok = s.skip(0)
		default:
			return false
		}
		if !ok {
			return false
		}
		s.ws()
		if s.eat(',') {
			continue
		}
		if !s.eat('}') {
			return false
		}
		break
	}
	s.ws()
	return s.i == len(s.b) && rec.Type != "" && !rec.ID.IsZero()
}

// typ reads a record's type: one of those the index reads without a
// copy (the constant), any other as str does.
func (s *scanner) typ(dst *string) bool {
	start := s.i
	t, ok := s.raw()
	if !ok {
		return false
	}
	for _, known := range [...]string{TypeEnd, TypeStart, TypeJudge, TypeGroup, TypeFirst} {
		if string(t) == known {
			*dst = known
			return true
		}
	}
	s.i = start
	return s.str(dst)
}

// rawKey is key without a copy: the key's bytes in the line.
func (s *scanner) rawKey() ([]byte, bool) {
	if !s.eat('"') {
		return nil, false
	}
	start := s.i
	for s.i < len(s.b) {
		c := s.b[s.i]
		switch {
		case c == '"':
			k := s.b[start:s.i]
			s.i++
			return k, true
		case c >= 'a' && c <= 'z', c >= '0' && c <= '9', c == '_':
			s.i++
		default:
			return nil, false
		}
	}
	return nil, false
}

// raw is str without a copy: the string's bytes in the line.
func (s *scanner) raw() ([]byte, bool) {
	if !s.eat('"') {
		return nil, false
	}
	start := s.i
	for s.i < len(s.b) {
		c := s.b[s.i]
		switch {
		case c == '"':
			if !utf8.Valid(s.b[start:s.i]) {
				return nil, false
			}
			b := s.b[start:s.i]
			s.i++
			return b, true
		case c == '\\' || c < 0x20:
			return nil, false
		}
		s.i++
	}
	return nil, false
}

// pathKey reports whether b is a path as delegation.ParsePath reads one
// (the empty path too), without allocating: parts joined by ">", each
// "L<line>", then "/<iteration>" any number of times, then "#<attempt>"
// or not; every number without leading zeros, fitting an int, at least
// 1 (an attempt 2). FuzzPathKey holds it to ParsePath.
func pathKey(b []byte) bool {
	for len(b) > 0 {
		seg := b
		i := bytes.IndexByte(b, '>')
		if i >= 0 {
			seg, b = b[:i], b[i+1:]
			if len(b) == 0 {
				return false // an empty last part
			}
		} else {
			b = nil
		}
		if !segmentKey(seg) {
			return false
		}
	}
	return true
}

// segmentKey is pathKey of one part.
func segmentKey(seg []byte) bool {
	body := seg
	if i := bytes.IndexByte(seg, '#'); i >= 0 {
		if !decimal(seg[i+1:], 2) {
			return false
		}
		body = seg[:i]
	}
	if len(body) == 0 || body[0] != 'L' {
		return false
	}
	line, iters, more := body[1:], []byte(nil), false
	if i := bytes.IndexByte(body, '/'); i >= 0 {
		line, iters, more = body[1:i], body[i+1:], true
	}
	if !decimal(line, 1) {
		return false
	}
	if !more {
		return true
	}
	for {
		it := iters
		i := bytes.IndexByte(iters, '/')
		if i >= 0 {
			it, iters = iters[:i], iters[i+1:]
		}
		if !decimal(it, 1) {
			return false
		}
		if i < 0 {
			return true
		}
	}
}

// decimal reports whether b is a decimal number of least or more,
// without a sign or leading zeros, that fits an int.
func decimal(b []byte, least int) bool {
	const maxInt = "9223372036854775807"
	if len(b) == 0 || len(b) > len(maxInt) || b[0] == '0' {
		return false
	}
	for _, c := range b {
		if c < '0' || c > '9' {
			return false
		}
	}
	if len(b) == len(maxInt) && string(b) > maxInt {
		return false
	}
	return len(b) > 1 || int(b[0]-'0') >= least
}
