// Package actor names who did something in a lab in a learner's words
// ("you (kubectl)", "garbage collector", "scheduler"), from a field manager
// or from a request's user and user agent. The timeline and the aggregated
// API server name their actors with it.
package actor
