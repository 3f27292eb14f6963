package control

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
	"syscall"
	"time"
)

// Status describes a running lab; its server writes it to the state dir
// (Dir.StatusFile) once the lab is ready, and again when its health
// changes.
type Status struct {
	PID        int       `json:"pid"`
	Endpoint   string    `json:"endpoint"`
	Kubeconfig string    `json:"kubeconfig"`
	DataDir    string    `json:"dataDir,omitempty"`
	StartedAt  time.Time `json:"startedAt"`
	ReadyAt    time.Time `json:"readyAt"`
	// Webhooks says where to serve your own webhooks ('crdlab up
	// --webhooks'); nil when the lab calls none of yours.
	Webhooks *WebhookServing `json:"webhooks,omitempty"`
	// UI is the address of the lab's web UI, without its token (UIToken);
	// empty with 'crdlab up --no-ui'.
	UI string `json:"ui,omitempty"`
	// Lang is the language the lab speaks to a learner ('crdlab up
	// --lang', or its locale): "en" or "zh"; its web UI opens in it, and a
	// scenario run against it speaks it unless told otherwise. Empty: en.
	Lang string `json:"lang,omitempty"`
	// Kubernetes is the version the lab's kube-apiserver serves, as its
	// /version says ("v1.36.5"); 'crdlab up --kubernetes' chooses the
	// minor. Empty: a lab of an older crdlab.
	Kubernetes string `json:"kubernetes,omitempty"`
	Health
}

// WebhookServing says where to serve your own webhooks: on Host:Port,
// with the certificate and key in CertDir (tls.crt, tls.key, signed by
// ca.crt), as controller-runtime's webhook.Options take them. The
// apiserver calls Front, which forwards each call there and puts it on the
// timeline.
type WebhookServing struct {
	Host    string `json:"host"`
	Port    int    `json:"port"`
	CertDir string `json:"certDir"`
	Front   string `json:"front"`
}

// Lab states of Health.State.
const (
	// StateRunning: every supervised process is up (or was stopped on
	// purpose, 'crdlab component stop').
	StateRunning = "running"
	// StateDegraded: a process exited on its own and is being restarted,
	// or the lab lost something it cannot get back (Health.Problems).
	StateDegraded = "degraded"
)

// Health says whether each process a lab supervises is up, and how often
// it was restarted.
type Health struct {
	State     string          `json:"state"`
	Processes []ProcessHealth `json:"processes,omitempty"`
	// Problems are what went wrong for good, in words: etcd restarted
	// without the data it had.
	Problems []string `json:"problems,omitempty"`
	// KubeletRefused counts the writes of the simulated kubelet that the
	// apiserver refused (a Pod's status it found invalid): each is also a
	// Warning Event on its Pod, reason StatusRefused, with the
	// apiserver's words. LastKubeletRefusal is the last, in words.
	KubeletRefused     int    `json:"kubeletRefused,omitempty"`
	LastKubeletRefusal string `json:"lastKubeletRefusal,omitempty"`
}

// ProcessHealth is one supervised process of a lab: etcd, kube-apiserver,
// kube-controller-manager, kube-scheduler.
type ProcessHealth struct {
	Name string `json:"name"`
	// Up: it runs and answered its health check since it last started.
	Up bool `json:"up"`
	// Stopped: stopped on purpose; not restarted until started again.
	Stopped bool `json:"stopped,omitempty"`
	// Restarts counts the times it exited on its own and was started again.
	Restarts int `json:"restarts"`
	// DownSince is when it exited, while it is not up again.
	DownSince time.Time `json:"downSince,omitzero"`
	// LastExit says how it last exited on its own.
	LastExit string `json:"lastExit,omitempty"`
}

// Status returns the status of the lab running on the state dir, or an
// error wrapping ErrNotRunning.
func (d Dir) Status() (*Status, error) {
	if !d.held() {
		return nil, fmt.Errorf("%w on state dir %s", ErrNotRunning, string(d))
	}
	st, err := d.readStatus()
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%w on state dir %s (one is starting)", ErrNotRunning, string(d))
	}
	return st, err
}

func (d Dir) readStatus() (*Status, error) {
	data, err := os.ReadFile(d.StatusFile())
	if err != nil {
		return nil, err
	}
	var st Status
	if err := json.Unmarshal(data, &st); err != nil {
		return nil, fmt.Errorf("unable to read %s: %w", d.StatusFile(), err)
	}
	return &st, nil
}

// held reports whether a process holds the state dir's lock, that is,
// whether a lab runs (or starts) on it. It asks with a shared lock, for an
// instant: probes never see each other as a lab, and a lab starting
// meanwhile waits for it (lab/server's Lock retries briefly).
func (d Dir) held() bool {
	f, err := os.Open(d.LockFile())
	if err != nil {
		return false
	}
	defer f.Close()
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_SH|syscall.LOCK_NB); err != nil {
		return errors.Is(err, syscall.EWOULDBLOCK)
	}
	_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
	return false
}

// UIURL returns the address of the web UI of the lab st describes, with
// its token, or "" when it serves none or the token cannot be read.
func (d Dir) UIURL(st *Status) string {
	if st == nil || st.UI == "" {
		return ""
	}
	token, err := os.ReadFile(d.UIToken())
	if err != nil {
		return ""
	}
	return st.UI + "?token=" + strings.TrimSpace(string(token))
}
