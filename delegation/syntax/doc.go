// Package syntax is the front end of the Delegation language: a scanner
// that turns the fenced code lines of a spec into tokens (with INDENT and
// OUTDENT from a stack of indentation prefixes), a recursive-descent parser
// producing a sealed AST, a position-free tree dump and a tree walker.
//
// Every position is a byte offset into the .md file the block came from,
// so diagnostics point at the right line and column even when the fence
// sits inside a list item. The grammar is in ../grammar.md; each parse
// function carries its production in a comment.
//
// Entry points: Parse (lines of one block with their .md offsets),
// ParseString (a whole string as a file, for tests and tools), Walk, Dump.
// Main types: Program, Stmt, Expr and their node types (ast.go), Line,
// Token, NaturalCond (a condition that is not an expression, analysed for
// the judge: its words, verb, negation and `says` structure).
package syntax
