package syntax

// A lint parses a block per file, and a block's tree is a few hundred
// small nodes: allocated one by one they were most of a parse's
// allocations. The parser cuts them from slabs instead, one backing array
// per node type per parse, sized from the block's tokens (countNodes), as
// the Markdown loader cuts bullet items from one array. The tree's nodes
// are held by the caller for the life of the spec, so a slab belongs to
// one parse and is never reused; only the scratch state (buffers) is.

// programBlock is what every parse makes once, in one allocation: the
// program, the delegation's frame, and room for the first calls and for
// loops the resolver lists, for the delegation's first names and their
// table, and for the statement and field lists of a block of a few lines.
type programBlock struct {
	prog   Program
	top    Frame
	calls  [4]*CallExpr
	loops  [2]*ForExpr
	index  [32]int32  // top's index, while it has no more than 16 names
	names  [16]string // top's names, while there are no more
	stmts  [16]Stmt
	fields [16]*Field
}

// seed starts the lists in pb's arrays when the block's estimates fit.
func (a *arena) seed(pb *programBlock) {
	seedList(&a.stmtLists, pb.stmts[:])
	seedList(&a.fieldLists, pb.fields[:])
}

func seedList[T any](l *lists[T], buf []T) {
	if l.hint <= len(buf) {
		l.free = buf
	}
}

// slab hands out values of one node type from a backing array.
type slab[T any] struct {
	free   []T
	hint   int // how many the parse is likely to need: the first array's size
	arrays int // how many arrays the slab has made
}

// new returns a pointer to a fresh copy of v from the slab.
func (s *slab[T]) new(v T) *T {
	if len(s.free) == 0 {
		n := s.hint
		if n < 1 {
			n = 1
		}
		s.free = make([]T, n)
		s.hint = 4 // the estimate fell short: the rest come four at a time
		s.arrays++
	}
	p := &s.free[0]
	*p = v
	s.free = s.free[1:]
	return p
}

// lists hands out the element arrays of lists (statement lists, fields)
// from one backing array per element type.
type lists[T any] struct {
	free []T
	hint int
}

// cut returns a copy of items (nil when empty) whose capacity is its
// length, so that an append by a reader copies rather than writes into
// the next list.
func (l *lists[T]) cut(items []T) []T {
	n := len(items)
	if n == 0 {
		return nil
	}
	if len(l.free) < n {
		l.free = make([]T, max(n, l.hint))
		l.hint = 8
	}
	s := l.free[:n:n]
	copy(s, items)
	l.free = l.free[n:]
	return s
}

// room returns an empty slice with room for n items.
func (l *lists[T]) room(n int) []T {
	if len(l.free) < n {
		l.free = make([]T, max(n, l.hint))
		l.hint = 8
	}
	s := l.free[:0:n]
	l.free = l.free[n:]
	return s
}

// arena is the slabs of one parse.
type arena struct {
	idents   slab[Ident]
	fields   slab[Field]
	lets     slab[LetStmt]
	assigns  slab[AssignStmt]
	exprs    slab[ExprStmt]
	ifs      slab[IfStmt]
	returns  slab[ReturnStmt]
	appends  slab[AppendStmt]
	calls    slab[CallExpr]
	objects  slab[ObjectLit]
	listLits slab[ListLit]
	members  slab[MemberExpr]
	strs     slab[StringLit]
	numbers  slab[NumberLit]
	binaries slab[BinaryExpr]
	unaries  slab[UnaryExpr]
	isExprs  slab[IsExpr]
	nulls    slab[NullLit]
	bools    slab[BoolLit]
	fors     slab[ForExpr]
	repeats  slab[RepeatExpr]
	naturals slab[NaturalCond]
	frames   slab[Frame]
	bindings slab[Binding]

	stmtLists  lists[Stmt]
	fieldLists lists[*Field]
	exprLists  lists[Expr]
	wordLists  lists[Word]
	names      lists[string] // of parallel frames

	// nCalls and nLoops size the resolver's lists of calls and for loops.
	nCalls, nLoops int
}

// countNodes sets the slabs' hints from the block's tokens: what each
// kind of node is made from (a `let` word starting a line, a key before a
// ':', a '{'...). The counts are estimates: a slab that runs short grows.
func (a *arena) countNodes(toks []token) {
	braces, condLine := 0, false
	var par parallelSpan
	for i := range toks {
		t := &toks[i]
		next := EOF
		if i+1 < len(toks) {
			next = toks[i+1].kind
		}
		inPar := par.step(t)
		switch t.kind {
		case NEWLINE:
			a.stmtLists.hint++
		case STRING:
			a.strs.hint++
			a.idents.hint += countByte(t.raw, '{') // interpolated names
			a.members.hint += interpolatedDots(t.raw)
			if next == COLON {
				a.fields.hint++
			}
		case INT, FLOAT:
			a.numbers.hint++
		case LBRACE:
			a.objects.hint++
			braces++
		case RBRACE:
			braces = max(braces-1, 0)
		case LBRACK:
			a.listLits.hint++
			a.exprLists.hint++
		case COMMA:
			a.exprLists.hint++
		case DOT:
			a.members.hint++
		case EQ, NE, LT, LE, GT, GE, PLUS, MINUS:
			a.binaries.hint++
		case ASSIGN:
			a.assigns.hint++
		case IDENT:
			if t.nl {
				condLine = t.raw == "if" || t.raw == "elif" || t.raw == "loop"
			}
			if condLine {
				a.wordLists.hint++
			}
			name := a.countIdent(t, next, braces > 0 && (t.nl || i > 0 && (toks[i-1].kind == LBRACE || toks[i-1].kind == COMMA)))
			if name && inPar {
				a.bindings.hint++
			}
		}
	}
	a.assigns.hint = max(a.assigns.hint-a.lets.hint, 0)
	a.fieldLists.hint = a.fields.hint
	a.nCalls, a.nLoops = a.calls.hint, a.fors.hint
}

// parallelSpan follows the tokens from a `parallel` word to the end of
// the block under its line: a name there may be bound in a parallel
// frame, and each use of one gets a Binding (its Shadows).
type parallelSpan struct {
	depth int  // of INDENTs
	body  int  // the depth of the parallel body, 0 before it opens
	open  bool // a parallel word is met, its body not yet closed
}

// step takes the next token and reports whether it is a name in a span.
func (s *parallelSpan) step(t *token) bool {
	switch t.kind {
	case INDENT:
		s.depth++
		if s.open && s.body == 0 {
			s.body = s.depth
		}
	case OUTDENT:
		if s.open && s.depth == s.body {
			s.open, s.body = false, 0
		}
		s.depth--
	case IDENT:
		s.open = s.open || t.raw == "parallel"
		return s.open
	}
	return false
}

// countIdent counts the node a name token makes; item says it may be a
// field of an object, shorthand (`{ a, b }`) when no ':' follows. A name
// before a ':' is a key when it starts a line (a call's argument) or an
// object's field; else the ':' ends a block's header (`for x in xs:`).
// It reports whether the token is a name read or bound (not a keyword, not
// a key).
func (a *arena) countIdent(t *token, next Token, item bool) bool {
	if next == COLON && (t.nl || item) {
		switch t.raw {
		case "else", "try", "finally", "catch", "parallel":
		default:
			a.fields.hint++
			return false
		}
	}
	switch t.raw {
	case "let", "const":
		a.lets.hint++
	case "call":
		a.calls.hint++
		a.exprs.hint++ // a call standing alone
	case "return":
		a.returns.hint++
	case "if", "elif":
		a.ifs.hint++
		a.stmtLists.hint++ // an elif is its own Else list
		a.naturals.hint++
	case "loop":
		a.naturals.hint++
	case "for":
		a.fors.hint++
		a.exprs.hint++
	case "repeat":
		a.repeats.hint++
		a.exprs.hint++
	case "parallel":
		a.frames.hint += 2
	case "append", "record":
		a.appends.hint++
	case "and", "or", "meets":
		a.binaries.hint++
	case "not":
		a.unaries.hint++
	case "is":
		a.isExprs.hint++
	case "null":
		a.nulls.hint++
	case "true", "false":
		a.bools.hint++
	case WorldRead:
		a.calls.hint++
		a.idents.hint++
	case "in", "as", "to", "else", "catch", "finally", "try", "first", "while", "until", "max",
		"retries", "timeout", "backoff", "on_fail", "abort", "use", "present", "throw",
		"continue", "break":
	default:
		a.idents.hint++
		if item {
			a.fields.hint++
		}
		return true
	}
	return false
}

// interpolatedDots counts the dots inside braces in a string's raw
// text: the members an interpolation reads (`{evaluation.score}`).
func interpolatedDots(s string) int {
	n, depth := 0, 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '{':
			depth++
		case '}':
			depth = max(depth-1, 0)
		case '.':
			if depth > 0 {
				n++
			}
		}
	}
	return n
}

func countByte(s string, c byte) int {
	n := 0
	for i := 0; i < len(s); i++ {
		if s[i] == c {
			n++
		}
	}
	return n
}
