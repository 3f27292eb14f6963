//go:build !linux && !darwin

package proc

// done looks every 200ms: this OS has no wait for a process crdlab knows.
func done(pid int) <-chan struct{} { return lookEvery200ms(pid) }
