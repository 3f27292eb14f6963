// Package format is the scenario file format on its own: its types, strict
// loading with errors that name the file, line and field, explain and
// describe texts, and the JSON schema. It needs no cluster, so that a
// scenario can be checked, documented and fuzzed anywhere.
//
// A scenario is YAML defined by the types of types.go (see
// docs/scenario-format.md, generated from them, and
// docs/scenario.schema.json for editors).
package format
