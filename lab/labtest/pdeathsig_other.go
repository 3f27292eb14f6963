//go:build !linux

package labtest

import "os/exec"

// setParentDeathSignal does nothing: only Linux has a parent death signal.
// The lab watches its owner itself (--owner-pid).
func setParentDeathSignal(*exec.Cmd) {}
