package server

import (
	"encoding/json"
	"os"
	"strconv"

	"github.com/crdlab/crdlab/lab/labtest/control"
	"github.com/crdlab/crdlab/lab/writefile"
)

// writeStatus records a ready lab in d: its kubeconfig, its pid file and
// its status, last, since other processes find the lab by it.
func writeStatus(d control.Dir, st control.Status, kubeconfig []byte) error {
	if err := writefile.Atomic(d.Kubeconfig(), kubeconfig, 0o600); err != nil {
		return err
	}
	if err := writefile.Atomic(d.PIDFile(), []byte(strconv.Itoa(st.PID)+"\n"), 0o644); err != nil {
		return err
	}
	return updateStatus(d, st)
}

// updateStatus rewrites the status writeStatus wrote (its health changed).
// Callers serialize their updates.
func updateStatus(d control.Dir, st control.Status) error {
	data, err := json.MarshalIndent(st, "", "  ")
	if err != nil {
		return err
	}
	return writefile.Atomic(d.StatusFile(), append(data, '\n'), 0o644)
}

// clearStatus removes what writeStatus wrote, and the UI's token, when the
// lab stops.
func clearStatus(d control.Dir) {
	for _, f := range []string{d.StatusFile(), d.PIDFile(), d.Kubeconfig(), d.UIToken()} {
		_ = os.Remove(f)
	}
}
