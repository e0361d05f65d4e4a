package syntax

// Token is the kind of a lexical token.
type Token uint8

// The token kinds. Keywords are recognised only where the grammar expects
// them, so a name like `record` or `first` can still be a variable.
const (
	ILLEGAL Token = iota
	EOF
	NEWLINE
	INDENT
	OUTDENT

	IDENT    // name, may contain hyphens after a dot
	INT      // 42
	FLOAT    // 0.5
	STRING   // "..." or """..."""
	DURATION // 500ms 30s 2m 1h

	LPAREN // (
	RPAREN // )
	LBRACK // [
	RBRACK // ]
	LBRACE // {
	RBRACE // }
	COMMA  // ,
	COLON  // :
	DOT    // .
	ASSIGN // =
	EQ     // ==
	NE     // !=
	LT     // <
	LE     // <=
	GT     // >
	GE     // >=
	PLUS   // +
	MINUS  // -
	PIPE   // | (a pipeline stage, parse_pipe.go)
	AND    // and
	OR     // or
	NOT    // not
	MEETS  // meets
)

var tokenNames = [...]string{
	ILLEGAL: "illegal token", EOF: "end of block", NEWLINE: "end of line",
	INDENT: "indent", OUTDENT: "outdent", IDENT: "name", INT: "integer",
	FLOAT: "number", STRING: "string", DURATION: "duration",
	LPAREN: "(", RPAREN: ")", LBRACK: "[", RBRACK: "]", LBRACE: "{",
	RBRACE: "}", COMMA: ",", COLON: ":", DOT: ".", ASSIGN: "=", EQ: "==",
	NE: "!=", LT: "<", LE: "<=", GT: ">", GE: ">=", PLUS: "+", MINUS: "-",
	PIPE: "|", AND: "and", OR: "or", NOT: "not", MEETS: "meets",
}

func (t Token) String() string {
	if int(t) < len(tokenNames) && tokenNames[t] != "" {
		return tokenNames[t]
	}
	return "token"
}
