package control

import (
	"os/exec"
	"testing"
	"time"
)

// A lab that writes its byte is ready; one that exits without it is not.
func TestPassReady(t *testing.T) {
	for _, tc := range []struct {
		script string
		ready  bool
	}{
		{`eval "printf x >&$` + ReadyFDEnv + `"; sleep 5`, true},
		{`exit 1`, false},
	} {
		cmd := exec.Command("sh", "-c", tc.script)
		ready, started, err := PassReady(cmd)
		if err != nil {
			t.Fatal(err)
		}
		err = cmd.Start()
		started()
		if err != nil {
			t.Fatal(err)
		}
		exited := make(chan struct{})
		go func() {
			_ = cmd.Wait()
			close(exited)
		}()
		if tc.ready {
			select {
			case <-ready:
			case <-exited:
				t.Errorf("%s: exited, never ready", tc.script)
			case <-time.After(5 * time.Second):
				t.Errorf("%s: not ready in 5s", tc.script)
			}
			_ = cmd.Process.Kill()
			<-exited
			continue
		}
		<-exited
		select {
		case <-ready:
			t.Errorf("%s: ready, though it wrote nothing", tc.script)
		default:
		}
	}
}
