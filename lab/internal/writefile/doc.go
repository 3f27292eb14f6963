// Package writefile writes the files of a lab's folder: whole or not at
// all, so that a reader (another crdlab command, a component, a test
// suite) never sees half of one (Atomic), in folders proven writable
// before anything starts (EnsureWritable).
package writefile
