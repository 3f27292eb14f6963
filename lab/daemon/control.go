package daemon

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"time"

	"github.com/crdlab/crdlab/lab/internal/proc"
	"github.com/crdlab/crdlab/lab/timeline"
)

// The control socket lets other crdlab commands act on a lab running in
// another process ('crdlab node stop' on 'crdlab up'): what cannot be done
// through the Kubernetes API, because it happens outside the cluster, like a
// machine dying. It is a Unix socket in the state dir, so only users who
// can reach the state dir can use it.

// Component is a component of a lab (controller-manager, scheduler, nodes,
// aggregated-api, an operator) and whether it runs.
type Component struct {
	Name    string `json:"name"`
	Running bool   `json:"running"`
}

// Node is a simulated node of a lab and whether its kubelet runs.
type Node struct {
	Name    string `json:"name"`
	Running bool   `json:"running"`
}

// Sentinel errors of a lab's components and nodes. They are the same
// values in the lab's process and in a client of its control socket, so
// that errors.Is works on both sides.
var (
	// ErrUnknownComponent: the lab has no component of that name.
	ErrUnknownComponent = errors.New("unknown component")
	// ErrUnknownNode: the lab has no simulated node of that name.
	ErrUnknownNode = errors.New("unknown node")
)

// ResetOptions say what a reset keeps or removes.
type ResetOptions struct {
	// RemoveCRDs also removes the CustomResourceDefinitions created since
	// the lab started (and the APIServices the apiserver made for them).
	// By default they stay, so that a suite installs its CRDs once and
	// resets between specs; their custom resources go either way.
	RemoveCRDs bool `json:"removeCRDs,omitempty"`
}

// Lab is what the control socket serves: a lab's components and nodes, to
// list, stop and start (*lab.Lab).
type Lab interface {
	Components() []Component
	StopComponent(ctx context.Context, name string) error
	StartComponent(ctx context.Context, name string) error
	Nodes() []Node
	StopNode(ctx context.Context, name string) error
	StartNode(ctx context.Context, name string) error
	Reset(ctx context.Context, opts ResetOptions) error
}

// wireError is an error response: the message, and which sentinel error it
// wraps, if any.
type wireError struct {
	Error  string `json:"error"`
	Reason string `json:"reason,omitempty"`
}

// reasons name the sentinel errors on the wire.
var reasons = map[string]error{
	"UnknownComponent": ErrUnknownComponent,
	"UnknownNode":      ErrUnknownNode,
}

// remoteError is an error the lab answered with; it wraps the sentinel the
// lab's error wrapped.
type remoteError struct {
	msg      string
	sentinel error
}

func (e *remoteError) Error() string { return e.msg }
func (e *remoteError) Unwrap() error { return e.sentinel }

// Streams are what a lab's process streams to and from other processes
// through its control socket.
type Streams struct {
	// Events, if not nil, is streamed to clients of GET /events: what only
	// the lab's process sees (its operators' reconcile passes, the requests
	// its aggregated API server answers).
	Events *timeline.Broadcast
	// Reports, if not nil, receives the report entries (one JSON object
	// each) that the scenario runs of other processes post to POST
	// /reports ('crdlab scenario run' against 'crdlab up'), for the web UI.
	Reports func(json.RawMessage)
}

// Serve serves the control socket of l in d until ctx is done.
func Serve(ctx context.Context, d Dir, l Lab, streams Streams) error {
	events := streams.Events
	if err := d.CheckPathLength(); err != nil {
		return err
	}
	path := d.ControlSocket()
	_ = os.Remove(path) // left by a lab that was killed; the state dir lock is ours
	ln, err := net.Listen("unix", path)
	if err != nil {
		return fmt.Errorf("unable to listen on %s: %w", path, err)
	}
	if err := os.Chmod(path, 0o600); err != nil {
		ln.Close()
		return fmt.Errorf("unable to restrict %s: %w", path, err)
	}
	ln = ownerOnly{ln.(*net.UnixListener)}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /nodes", func(w http.ResponseWriter, _ *http.Request) {
		_ = json.NewEncoder(w).Encode(l.Nodes())
	})
	mux.HandleFunc("POST /nodes/{name}/{action}", func(w http.ResponseWriter, r *http.Request) {
		act(w, r, l.StopNode, l.StartNode)
	})
	mux.HandleFunc("GET /components", func(w http.ResponseWriter, _ *http.Request) {
		_ = json.NewEncoder(w).Encode(l.Components())
	})
	mux.HandleFunc("POST /components/{name}/{action}", func(w http.ResponseWriter, r *http.Request) {
		act(w, r, l.StopComponent, l.StartComponent)
	})
	mux.HandleFunc("POST /reset", func(w http.ResponseWriter, r *http.Request) {
		var opts ResetOptions
		if err := json.NewDecoder(r.Body).Decode(&opts); err != nil && !errors.Is(err, io.EOF) {
			writeError(w, http.StatusBadRequest, fmt.Errorf("unable to read the reset options: %w", err))
			return
		}
		if err := l.Reset(r.Context(), opts); err != nil {
			writeError(w, http.StatusConflict, err)
		}
	})
	mux.HandleFunc("GET /events", func(w http.ResponseWriter, r *http.Request) {
		if events == nil {
			writeError(w, http.StatusNotFound, errors.New("this lab streams no events"))
			return
		}
		streamEvents(ctx, w, r, events)
	})
	mux.HandleFunc("POST /reports", func(w http.ResponseWriter, r *http.Request) {
		// One JSON object per line, for as long as the run lasts.
		dec := json.NewDecoder(r.Body)
		for {
			var entry json.RawMessage
			if err := dec.Decode(&entry); err != nil {
				if !errors.Is(err, io.EOF) {
					writeError(w, http.StatusBadRequest, fmt.Errorf("unable to read a report entry: %w", err))
				}
				return
			}
			if streams.Reports != nil {
				streams.Reports(entry)
			}
		}
	})
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	go func() {
		<-ctx.Done()
		_ = srv.Close()
		_ = os.Remove(path)
	}()
	go func() { _ = srv.Serve(ln) }()
	return nil
}

// act runs the stop or start the request names.
func act(w http.ResponseWriter, r *http.Request, stop, start func(context.Context, string) error) {
	name := r.PathValue("name")
	var err error
	switch r.PathValue("action") {
	case "stop":
		err = stop(r.Context(), name)
	case "start":
		err = start(r.Context(), name)
	default:
		writeError(w, http.StatusNotFound, fmt.Errorf("unknown action %q: want stop or start", r.PathValue("action")))
		return
	}
	if err != nil {
		code := http.StatusConflict
		for _, s := range reasons {
			if errors.Is(err, s) {
				code = http.StatusNotFound
			}
		}
		writeError(w, code, err)
	}
}

func writeError(w http.ResponseWriter, code int, err error) {
	we := wireError{Error: err.Error()}
	for reason, s := range reasons {
		if errors.Is(err, s) {
			we.Reason = reason
		}
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(we)
}

func streamEvents(ctx context.Context, w http.ResponseWriter, r *http.Request, events *timeline.Broadcast) {
	ch, cancel := events.Subscribe()
	defer cancel()
	w.Header().Set("Content-Type", "application/x-ndjson")
	w.WriteHeader(http.StatusOK)
	flusher, _ := w.(http.Flusher)
	if flusher != nil {
		flusher.Flush()
	}
	enc := json.NewEncoder(w)
	for {
		select {
		case <-r.Context().Done():
			return
		case <-ctx.Done():
			return
		case e := <-ch:
			if enc.Encode(e) != nil {
				return
			}
			if flusher != nil {
				flusher.Flush()
			}
		}
	}
}

// ownerOnly accepts connections from processes of this user (and root)
// only, whatever the socket's mode: the socket is 0600 in a private state
// dir, and the peer's credentials are checked as well.
type ownerOnly struct{ *net.UnixListener }

func (l ownerOnly) Accept() (net.Conn, error) {
	for {
		conn, err := l.AcceptUnix()
		if err != nil {
			return nil, err
		}
		if uid, err := proc.PeerUID(conn); err == nil && (uid == os.Getuid() || uid == 0) {
			return conn, nil
		}
		_ = conn.Close()
	}
}
