package trace

import (
	"context"
	"net/url"
	"os"
	"path/filepath"
	"time"

	"k8s.io/client-go/rest"

	"github.com/crdlab/crdlab/lab/labtest/control"
)

// LabEnv names the state dir of the lab a process's controllers report to;
// labtest.Environment.Start sets it (labtest.LabEnv, the same name).
const LabEnv = "CRDLAB_LAB"

// findLab returns the state dir of the lab whose apiserver cfg talks to:
// explicit if given, else $CRDLAB_LAB, else $CRDLAB_STATE_DIR or
// ~/.crdlab; false when no lab there runs with cfg's address.
func findLab(cfg *rest.Config, explicit string) (control.Dir, bool) {
	var candidates []string
	if explicit != "" {
		candidates = []string{explicit}
	} else {
		candidates = append(candidates, os.Getenv(LabEnv), os.Getenv("CRDLAB_STATE_DIR"))
		if home, err := os.UserHomeDir(); err == nil {
			candidates = append(candidates, filepath.Join(home, ".crdlab"))
		}
	}
	for _, dir := range candidates {
		if dir == "" {
			continue
		}
		d := control.Dir(dir)
		st, err := d.Status()
		if err == nil && cfg != nil && sameAddress(st.Endpoint, cfg.Host) {
			return d, true
		}
	}
	return "", false
}

// sameAddress says whether two apiserver addresses name the same host and
// port ("https://127.0.0.1:6443", "127.0.0.1:6443").
func sameAddress(a, b string) bool {
	return hostPort(a) != "" && hostPort(a) == hostPort(b)
}

func hostPort(address string) string {
	u, err := url.Parse(address)
	if err != nil || u.Host == "" {
		u, err = url.Parse("https://" + address)
		if err != nil || u.Host == "" {
			return ""
		}
	}
	if u.Port() == "" {
		return u.Host + ":443"
	}
	return u.Host
}

// reporter sends the passes of the controllers of a manager to a lab, in
// batches, from a runnable of the manager.
type reporter struct {
	ctl   *control.Client
	queue chan control.Pass
}

// maxBatch bounds the passes sent in one request.
const maxBatch = 256

func newReporter(d control.Dir) *reporter {
	return &reporter{ctl: control.NewClient(d), queue: make(chan control.Pass, 4096)}
}

// record queues p without waiting: when the queue is full (the lab does
// not keep up), p is lost.
func (r *reporter) record(p control.Pass) {
	select {
	case r.queue <- p:
	default:
	}
}

// Start sends the queued passes until ctx is done, then what is left, for
// at most a second.
func (r *reporter) Start(ctx context.Context) error {
	for {
		select {
		case p := <-r.queue:
			r.send(ctx, p)
		case <-ctx.Done():
			drain, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Second)
			defer cancel()
			for {
				select {
				case p := <-r.queue:
					r.send(drain, p)
				default:
					return nil
				}
			}
		}
	}
}

// send sends p and whatever else is queued, in one request. A lab that is
// gone loses them.
func (r *reporter) send(ctx context.Context, p control.Pass) {
	batch := []control.Pass{p}
	for len(batch) < maxBatch {
		select {
		case next := <-r.queue:
			batch = append(batch, next)
			continue
		default:
		}
		break
	}
	sendCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	_ = r.ctl.Passes(sendCtx, batch) // a lab gone or too slow: these lines are lost
}

// NeedLeaderElection says that the reporter runs on every replica: each
// reports its own passes.
func (r *reporter) NeedLeaderElection() bool { return false }
