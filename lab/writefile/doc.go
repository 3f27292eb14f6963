// Package writefile writes the files of crdlab's folders (a lab's state
// dir, its data dir, the learner's progress): whole or not at all, so that
// a reader (another crdlab command, a component, a test suite) never sees
// half of one (Atomic), in folders proven writable before anything starts
// (EnsureWritable). Every atomic write of the crdlab module goes through
// Atomic.
package writefile
