package check

// EnsuresFields is ensuresFields, for the test that holds it to the
// run's reading (shape.Fields).
var EnsuresFields = ensuresFields

// KnownType is knownType, for the same test.
var KnownType = knownType
