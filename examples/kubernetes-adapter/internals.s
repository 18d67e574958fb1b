// Empty on purpose: an assembly file in the package lets internals.go declare the functions it links to by
// name (//go:linkname) without bodies.
