package spec

// Kind is a spec's kind, its front matter `kind:` as written. The kinds
// prose reads are the constants; any other spelling is kept as written
// (the loader reports it, with the kind meant) so that messages can quote
// it. "" is a file without a kind.
type Kind string

// The kinds prose reads.
const (
	KindPattern        Kind = "pattern"        // slots and a Delegation (a library pattern)
	KindFunction       Kind = "function"       // Parameters -> Returns (0.15; was service)
	KindResponsibility Kind = "responsibility" // a node of the world model that maintains a truth
	KindGateway        Kind = "gateway"        // a node of the world model that receives events
	KindTest           Kind = "test"           // a test of other specs (Fixtures, Expects)
)

// String is the kind as front matter writes it.
func (k Kind) String() string { return string(k) }

// IsNode reports whether a spec of kind k is a node of the world model:
// a responsibility or a gateway.
func (k Kind) IsNode() bool { return k == KindResponsibility || k == KindGateway }
