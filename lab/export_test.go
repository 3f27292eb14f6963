package lab

// Crash kills the controller-manager or the scheduler outright, as a crash
// would; the lab's supervision restarts it. For tests of that supervision.
func (l *Lab) Crash(component string) error {
	if err := l.known(component); err != nil {
		return err
	}
	return l.children[component].Kill()
}
