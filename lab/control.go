package lab

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/crdlab/crdlab/lab/kubelet"
	"github.com/crdlab/crdlab/lab/timeline"
)

// The control socket lets other crdlab commands act on a lab running in
// another process ('crdlab node stop' on 'crdlab up'): what cannot be done
// through the Kubernetes API, because it happens outside the cluster, like a
// machine dying. It is a Unix socket in the state dir, so only users who
// can reach the state dir can use it.

// ControlSocket is the path of the lab's control socket.
func (d StateDir) ControlSocket() string { return filepath.Join(string(d), "control.sock") }

// maxSocketPath is the longest path of a Unix socket (sun_path, less its
// terminating zero).
const maxSocketPath = 107

// CheckPathLength fails when the state dir's path is too long for its
// control socket.
func (d StateDir) CheckPathLength() error {
	if path := d.ControlSocket(); len(path) > maxSocketPath {
		return fmt.Errorf("state dir %s is too long: its control socket %s would be %d bytes, a Unix socket path has at most %d",
			d, path, len(path), maxSocketPath)
	}
	return nil
}

// NodeState is a simulated node and whether it runs.
type NodeState struct {
	Name    string `json:"name"`
	Running bool   `json:"running"`
}

// ServeControl serves the control socket of l in sd until ctx is done.
// events, if not nil, is streamed to clients of GET /events: what only the
// lab's process sees (its operators' reconcile passes, the requests its
// aggregated API server answers).
func ServeControl(ctx context.Context, l *Lab, sd StateDir, events *timeline.Broadcast) error {
	if err := sd.CheckPathLength(); err != nil {
		return err
	}
	path := sd.ControlSocket()
	_ = os.Remove(path) // left by a lab that was killed; the state dir lock is ours
	ln, err := net.Listen("unix", path)
	if err != nil {
		return fmt.Errorf("unable to listen on %s: %w", path, err)
	}
	if err := os.Chmod(path, 0o600); err != nil {
		ln.Close()
		return fmt.Errorf("unable to restrict %s: %w", path, err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /nodes", func(w http.ResponseWriter, _ *http.Request) {
		var nodes []NodeState
		for _, n := range l.NodeNames() {
			running, _ := l.kubelet.Running(n)
			nodes = append(nodes, NodeState{Name: n, Running: running})
		}
		_ = json.NewEncoder(w).Encode(nodes)
	})
	mux.HandleFunc("POST /nodes/{name}/{action}", func(w http.ResponseWriter, r *http.Request) {
		name := r.PathValue("name")
		var err error
		switch r.PathValue("action") {
		case "stop":
			err = l.StopNode(name)
		case "start":
			err = l.StartNode(r.Context(), name)
		default:
			http.Error(w, "unknown action "+r.PathValue("action"), http.StatusNotFound)
			return
		}
		switch {
		case errors.Is(err, kubelet.ErrUnknownNode):
			http.Error(w, err.Error(), http.StatusNotFound)
		case err != nil:
			http.Error(w, err.Error(), http.StatusConflict)
		}
	})
	mux.HandleFunc("GET /controllers", func(w http.ResponseWriter, _ *http.Request) {
		_ = json.NewEncoder(w).Encode(l.Controllers())
	})
	mux.HandleFunc("POST /controllers/{name}/{action}", func(w http.ResponseWriter, r *http.Request) {
		name := r.PathValue("name")
		var err error
		switch r.PathValue("action") {
		case "stop":
			err = l.StopController(name)
		case "start":
			err = l.StartController(r.Context(), name)
		default:
			http.Error(w, "unknown action "+r.PathValue("action"), http.StatusNotFound)
			return
		}
		switch {
		case errors.Is(err, ErrUnknownController):
			http.Error(w, err.Error(), http.StatusNotFound)
		case err != nil:
			http.Error(w, err.Error(), http.StatusConflict)
		}
	})
	mux.HandleFunc("GET /events", func(w http.ResponseWriter, r *http.Request) {
		if events == nil {
			http.Error(w, "this lab streams no events", http.StatusNotFound)
			return
		}
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

// Control is a client of a running lab's control socket.
type Control struct {
	sd StateDir
	hc *http.Client
}

// Dial returns a client for the lab running on sd, or ErrNotRunning.
func Dial(sd StateDir) (*Control, error) {
	if _, err := sd.Status(); err != nil {
		return nil, err
	}
	path := sd.ControlSocket()
	hc := &http.Client{Transport: &http.Transport{
		DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			return (&net.Dialer{}).DialContext(ctx, "unix", path)
		},
	}}
	return &Control{sd: sd, hc: hc}, nil
}

// Nodes lists the simulated nodes of the lab.
func (c *Control) Nodes(ctx context.Context) ([]NodeState, error) {
	var nodes []NodeState
	body, err := c.do(ctx, http.MethodGet, "/nodes")
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(body, &nodes); err != nil {
		return nil, fmt.Errorf("unable to read the lab's answer: %w", err)
	}
	return nodes, nil
}

// StopNode stops a simulated node of the lab.
func (c *Control) StopNode(ctx context.Context, name string) error {
	_, err := c.do(ctx, http.MethodPost, "/nodes/"+name+"/stop")
	return err
}

// StartNode starts a stopped simulated node of the lab.
func (c *Control) StartNode(ctx context.Context, name string) error {
	_, err := c.do(ctx, http.MethodPost, "/nodes/"+name+"/start")
	return err
}

// Controllers lists the controllers of the lab that can be stopped.
func (c *Control) Controllers(ctx context.Context) ([]ControllerState, error) {
	var out []ControllerState
	body, err := c.do(ctx, http.MethodGet, "/controllers")
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(body, &out); err != nil {
		return nil, fmt.Errorf("unable to read the lab's answer: %w", err)
	}
	return out, nil
}

// StopController stops a controller of the lab (see Lab.StopController).
func (c *Control) StopController(ctx context.Context, name string) error {
	_, err := c.do(ctx, http.MethodPost, "/controllers/"+name+"/stop")
	return err
}

// StartController starts a stopped controller of the lab.
func (c *Control) StartController(ctx context.Context, name string) error {
	_, err := c.do(ctx, http.MethodPost, "/controllers/"+name+"/start")
	return err
}

// Events streams the lab's own events (reconcile passes of its operators,
// requests its aggregated API server answers) into sink until ctx is done
// or the lab stops. ready, if not nil, is called once the stream is open.
func (c *Control) Events(ctx context.Context, sink timeline.Sink, ready func()) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://lab/events", nil)
	if err != nil {
		return err
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		return fmt.Errorf("unable to reach the lab through %s: %w", c.sd.ControlSocket(), err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		body, _ := io.ReadAll(resp.Body)
		return errors.New(strings.TrimSpace(string(body)))
	}
	if ready != nil {
		ready()
	}
	dec := json.NewDecoder(resp.Body)
	for {
		var e timeline.Event
		if err := dec.Decode(&e); err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return err
		}
		sink.Record(e)
	}
}

func (c *Control) do(ctx context.Context, method, path string) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, method, "http://lab"+path, nil)
	if err != nil {
		return nil, err
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		return nil, fmt.Errorf("unable to reach the lab through %s: %w", c.sd.ControlSocket(), err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		return nil, errors.New(strings.TrimSpace(string(body)))
	}
	return body, nil
}
