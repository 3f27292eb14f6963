package scenarios

import "github.com/crdlab/crdlab/scenarios/format"

// The scenario format lives in package format, which has no dependency on
// a cluster (lint, schema, fuzzing); these names keep it at hand here.
type (
	// Scenario is a scripted, narrated run of reconcile loops.
	Scenario = format.Scenario
	// Step is one step of a scenario.
	Step = format.Step
	// ObjectRef selects objects.
	ObjectRef = format.ObjectRef
	// Expect waits until objects are as expected.
	Expect = format.Expect
	// ExpectError is a write that must be refused.
	ExpectError = format.ExpectError
	// Cause is what a refusal must be about: a field, and a reason.
	Cause = format.Cause
	// Apply creates or updates objects.
	Apply = format.Apply
	// Delete deletes objects.
	Delete = format.Delete
	// Patch patches an object.
	Patch = format.Patch
	// Scale sets replicas through the scale subresource.
	Scale = format.Scale
	// LabAction acts on the lab.
	LabAction = format.LabAction
	// Task asks the learner to do something, and checks it.
	Task = format.Task
	// Check is one condition of a task.
	Check = format.Check
	// LoadError lists the problems of a scenario file, with their lines.
	LoadError = format.LoadError
)

// Requirements a scenario can name.
const (
	NeedsControllerManager = format.NeedsControllerManager
	NeedsScheduler         = format.NeedsScheduler
	NeedsNodes             = format.NeedsNodes
	NeedsOperators         = format.NeedsOperators
	NeedsAggregatedAPI     = format.NeedsAggregatedAPI
)

var (
	// Parse decodes and checks a scenario (see format.Parse).
	Parse = format.Parse
	// LoadFile loads and checks a scenario file.
	LoadFile = format.LoadFile
	// Explain writes what a scenario shows, its steps, and its explanation.
	Explain = format.Explain
	// JSONSchema returns the JSON schema of the format.
	JSONSchema = format.JSONSchema
	// FormatReference returns the format's reference in Markdown.
	FormatReference = format.FormatReference
	// Columns is how many columns a text takes on a terminal.
	Columns = format.Columns
)
