// Package bench holds benchmarks that compare the Delegation interpreter
// with other embeddable interpreters written in Go (starlark-go and goja)
// on the same programs. It is a module of its own, so that those
// interpreters never enter the main module's dependencies.
//
// Each benchmark runs one program in all three languages, asserts that the
// three agree on its result, and reports each one's time per run side by
// side (prose-ns/op, starlark-ns/op, goja-ns/op) and prose's time as a
// multiple of the others' (prose/starlark, prose/goja). See BENCHMARKS.md
// at the repository's root for the command and the figures.
package bench
