package timeline

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"os"
	"strings"
	"sync"
	"time"
)

// The watch of an object says it was deleted, not by whom; the apiserver's
// audit log does. A lab runs its apiserver with an audit policy that logs
// deletions only (lab.AuditPolicy), and the timeline reads the log to name
// who deleted what: the garbage collector, the namespace controller, you.

// auditEvent is the part of an audit.k8s.io/v1 Event the timeline reads.
type auditEvent struct {
	Stage     string `json:"stage"`
	Verb      string `json:"verb"`
	UserAgent string `json:"userAgent"`
	User      struct {
		Username string `json:"username"`
	} `json:"user"`
	ObjectRef *struct {
		Resource  string `json:"resource"`
		Namespace string `json:"namespace"`
		Name      string `json:"name"`
	} `json:"objectRef"`
}

// auditLog indexes who deleted what, from an audit log it follows.
type auditLog struct {
	mu      sync.Mutex
	deleted map[string]string // resource/namespace/name (name "" for a collection) → actor
}

func auditKey(resource, ns, name string) string { return resource + "/" + ns + "/" + name }

// followAudit reads the audit log at path from its current end as it grows,
// until ctx is done.
func followAudit(ctx context.Context, path string) *auditLog {
	a := &auditLog{deleted: map[string]string{}}
	go func() {
		var f *os.File
		for f == nil { // the apiserver may not have created it yet
			var err error
			if f, err = os.Open(path); err != nil {
				select {
				case <-ctx.Done():
					return
				case <-time.After(200 * time.Millisecond):
				}
			}
		}
		defer f.Close()
		_, _ = f.Seek(0, io.SeekEnd)
		r := bufio.NewReaderSize(f, 64<<10)
		var partial []byte
		for {
			line, err := r.ReadBytes('\n')
			partial = append(partial, line...)
			if err == nil {
				a.add(partial)
				partial = partial[:0]
				continue
			}
			select {
			case <-ctx.Done():
				return
			case <-time.After(20 * time.Millisecond):
			}
		}
	}()
	return a
}

func (a *auditLog) add(line []byte) {
	var ev auditEvent
	if json.Unmarshal(line, &ev) != nil || ev.ObjectRef == nil || ev.Stage != "ResponseComplete" {
		return
	}
	if ev.Verb != "delete" && ev.Verb != "deletecollection" {
		return
	}
	ref := ev.ObjectRef
	a.mu.Lock()
	a.deleted[auditKey(ref.Resource, ref.Namespace, ref.Name)] = auditActor(ev.User.Username, ev.UserAgent)
	a.mu.Unlock()
}

// who returns who deleted the object, waiting up to wait for the audit log
// to say (the watch can be faster than the log); "" if it does not.
func (a *auditLog) who(resource, ns, name string, wait time.Duration) string {
	deadline := time.Now().Add(wait)
	for {
		a.mu.Lock()
		actor, ok := a.deleted[auditKey(resource, ns, name)]
		if !ok {
			actor, ok = a.deleted[auditKey(resource, ns, "")]
		}
		a.mu.Unlock()
		if ok || time.Now().After(deadline) {
			return actor
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// RequestActor names the client of a request (its user and user agent) in
// a learner's words: "you (kubectl)", "garbage collector", "scheduler"...
func RequestActor(username, userAgent string) string { return auditActor(username, userAgent) }

// auditActor names the client of a request in a learner's words.
func auditActor(username, userAgent string) string {
	agent, _, _ := strings.Cut(userAgent, "/")
	switch {
	case strings.HasPrefix(agent, "kubectl"):
		return "you (kubectl)"
	case agent == "crdlab-scenario":
		return "you (scenario)"
	case username == "system:serviceaccount:kube-system:generic-garbage-collector":
		return "garbage collector"
	case strings.HasPrefix(username, "system:serviceaccount:kube-system:"):
		return strings.TrimSuffix(strings.TrimPrefix(username, "system:serviceaccount:kube-system:"), "-controller")
	case username == "system:kube-scheduler":
		return "scheduler"
	case username == "system:kube-controller-manager":
		return "controller-manager"
	case strings.HasSuffix(agent, "-operator"):
		return agent
	}
	return Actor(agent)
}
