package control

import (
	"fmt"
	"os"
	"os/exec"
	"strconv"
)

// ReadyFDEnv names the file descriptor on which a 'crdlab up' says its lab
// is ready: one byte, once the status is written (Dir.Status answers). A
// lab that stops before it is ready closes it without a word. It is the
// one readiness signal: nothing polls the status or reads the output.
const ReadyFDEnv = "CRDLAB_READY_FD"

// PassReady prepares cmd, a 'crdlab up' about to start, to say on a pipe
// when its lab is ready. Call started once cmd.Start returned, whether it
// failed or not: it closes this process's end of the pipe the lab writes
// to. ready is closed once the lab is ready; it stays open if the lab
// stops first.
func PassReady(cmd *exec.Cmd) (ready <-chan struct{}, started func(), err error) {
	r, w, err := os.Pipe()
	if err != nil {
		return nil, nil, fmt.Errorf("unable to make the pipe of %s's readiness: %w", cmd.Path, err)
	}
	fd := 3 + len(cmd.ExtraFiles)
	cmd.ExtraFiles = append(cmd.ExtraFiles, w)
	if cmd.Env == nil {
		cmd.Env = os.Environ()
	}
	cmd.Env = append(cmd.Env, ReadyFDEnv+"="+strconv.Itoa(fd))
	ch := make(chan struct{})
	return ch, func() {
		w.Close()
		go func() {
			defer r.Close()
			if n, _ := r.Read(make([]byte, 1)); n == 1 {
				close(ch)
			}
		}()
	}, nil
}
