// Package linkname checks crdlab's //go:linkname declarations against the
// upstream declarations they name, for every module that compiles them:
// a go:linkname whose upstream type changed still compiles and links, and
// then corrupts memory at run time.
//
// Scan finds the directives in the repository's source; Module lists,
// with the go command run in a module's folder, the packages as that
// module resolves them (module downloads only, nothing is compiled); a
// Checker type-checks our package and the upstream package with go/types
// and compares the two objects' types with types.Identical.
//
// Type-checking a Kubernetes package with its dependency tree is slow, so
// a Checker type-checks only the two packages' own files (function bodies
// skipped): every other import is a fake package holding, as a distinct
// named type, each name the files select from it. Named types are
// identical only if they are the same name of the same package, so a fake
// never makes two different types identical; a name a declaration uses in
// any other way (a constant, a call in an initializer) leaves its type
// undetermined, which is reported, never passed.
package linkname
