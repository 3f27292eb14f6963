package server

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

	"github.com/crdlab/crdlab/lab/full"
	"github.com/crdlab/crdlab/lab/internal/proc"
	"github.com/crdlab/crdlab/lab/labtest/control"
	"github.com/crdlab/crdlab/lab/timeline"
)

// The control socket lets other crdlab commands act on a lab running in
// another process ('crdlab node stop' on 'crdlab up'): what cannot be done
// through the Kubernetes API, because it happens outside the cluster, like a
// machine dying. It is a Unix socket in the state dir, so only users who
// can reach the state dir can use it, and its peers' credentials are
// checked as well.

// controlled is what the control socket serves: a lab's components and
// nodes, to list, stop and start, its reset, and the events only its
// process sees, to stream and to add to (served).
type controlled interface {
	Components() []control.Component
	StopComponent(ctx context.Context, name string) error
	StartComponent(ctx context.Context, name string) error
	Nodes() []control.Node
	StopNode(ctx context.Context, name string) error
	StartNode(ctx context.Context, name string) error
	Reset(ctx context.Context, opts control.ResetOptions) error
	Events(ctx context.Context, sink timeline.Sink, ready func()) error
	Timeline(ctx context.Context, sink timeline.Sink, ready func(hold time.Duration)) error
	Record(e timeline.Event)
}

// served is a lab of this process with its timeline, as the control
// socket serves it.
type served struct {
	*full.Lab
	*timeline.Stream
}

// serveControl serves the control socket of l in d until ctx is done.
// reports, if not nil, receives the report entries of scenario runs.
func serveControl(ctx context.Context, d control.Dir, l controlled, reports func(json.RawMessage)) error {
	mux, err := newMux(handlers(ctx, l, reports))
	if err != nil {
		return err
	}
	return listenControl(ctx, d, mux)
}

// newMux serves each handler on its route, and fails unless there is
// exactly one handler for each of control.Routes(): the socket serves the
// protocol, all of it and nothing else.
func newMux(handlers map[control.Route]http.HandlerFunc) (*http.ServeMux, error) {
	mux := http.NewServeMux()
	var errs []error
	for _, route := range control.Routes() {
		h, ok := handlers[route]
		if !ok {
			errs = append(errs, fmt.Errorf("route %q has no handler", route))
			continue
		}
		mux.HandleFunc(string(route), h)
	}
	for route := range handlers {
		if !isRoute(route) {
			errs = append(errs, fmt.Errorf("handler of %q: no such route in package control", route))
		}
	}
	if err := errors.Join(errs...); err != nil {
		return nil, fmt.Errorf("the control socket does not serve the protocol: %w", err)
	}
	return mux, nil
}

func isRoute(route control.Route) bool {
	for _, r := range control.Routes() {
		if r == route {
			return true
		}
	}
	return false
}

// handlers are the control socket's handlers of l, by route. ctx is the
// server's: streams end with it.
func handlers(ctx context.Context, l controlled, reports func(json.RawMessage)) map[control.Route]http.HandlerFunc {
	return map[control.Route]http.HandlerFunc{
		control.RouteComponents: func(w http.ResponseWriter, _ *http.Request) {
			_ = json.NewEncoder(w).Encode(l.Components())
		},
		control.RouteStopComponent:  act(l.StopComponent),
		control.RouteStartComponent: act(l.StartComponent),
		control.RouteNodes: func(w http.ResponseWriter, _ *http.Request) {
			_ = json.NewEncoder(w).Encode(l.Nodes())
		},
		control.RouteStopNode:  act(l.StopNode),
		control.RouteStartNode: act(l.StartNode),
		control.RouteReset: func(w http.ResponseWriter, r *http.Request) {
			var opts control.ResetOptions
			if err := json.NewDecoder(r.Body).Decode(&opts); err != nil && !errors.Is(err, io.EOF) {
				writeError(w, http.StatusBadRequest, fmt.Errorf("unable to read the reset options: %w", err))
				return
			}
			if err := l.Reset(r.Context(), opts); err != nil {
				writeError(w, http.StatusConflict, err)
			}
		},
		control.RouteEvents: func(w http.ResponseWriter, r *http.Request) {
			streamEvents(ctx, w, r, l.Events)
		},
		control.RouteTimeline: func(w http.ResponseWriter, r *http.Request) {
			// The lab's hold goes with the stream: the client waits no
			// other (control.TimelineHoldHeader).
			streamEvents(ctx, w, r, func(ctx context.Context, sink timeline.Sink, ready func()) error {
				return l.Timeline(ctx, sink, func(hold time.Duration) {
					w.Header().Set(control.TimelineHoldHeader, hold.String())
					ready()
				})
			})
		},
		control.RoutePasses: takePasses(l.Record),
		control.RouteReports: func(w http.ResponseWriter, r *http.Request) {
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
				if reports != nil {
					reports(entry)
				}
			}
		},
	}
}

// act serves a stop or a start of the component or node the path names.
func act(do func(context.Context, string) error) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if err := do(r.Context(), r.PathValue("name")); err != nil {
			code := http.StatusConflict
			if control.WireError(err).Reason != "" {
				code = http.StatusNotFound // an unknown component or node
			}
			writeError(w, code, err)
		}
	}
}

func writeError(w http.ResponseWriter, code int, err error) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(control.WireError(err))
}

// streamEvents streams the events of a stream of l (l.Events,
// l.Timeline) to the client, one JSON object a line, until it goes or ctx
// is done.
func streamEvents(ctx context.Context, w http.ResponseWriter, r *http.Request,
	stream func(context.Context, timeline.Sink, func()) error) {
	reqCtx, cancel := context.WithCancel(r.Context())
	defer cancel()
	stop := context.AfterFunc(ctx, cancel)
	defer stop()
	flusher, _ := w.(http.Flusher)
	flush := func() {
		if flusher != nil {
			flusher.Flush()
		}
	}
	enc := json.NewEncoder(w)
	_ = stream(reqCtx, timeline.SinkFunc(func(e timeline.Event) {
		if enc.Encode(e) == nil {
			flush()
		}
	}), func() {
		w.Header().Set("Content-Type", "application/x-ndjson")
		w.WriteHeader(http.StatusOK)
		flush()
	})
}

// listenControl serves h on d's control socket until ctx is done.
func listenControl(ctx context.Context, d control.Dir, h http.Handler) error {
	if err := d.CheckPathLength(); err != nil {
		return err
	}
	path := d.ControlSocket()
	_ = os.Remove(path) // left by a lab that was killed; the state dir lock is ours
	ln, err := ListenPrivate(path)
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 5 * time.Second}
	go func() {
		<-ctx.Done()
		_ = srv.Close()
		_ = os.Remove(path)
	}()
	go func() { _ = srv.Serve(ln) }()
	return nil
}

// ListenPrivate listens on the Unix socket path, mode 0600, and accepts
// connections from processes of this user (and root) only, whatever the
// socket's mode: their credentials are checked as well. The control
// socket and learn.sock ('crdlab learn') are such sockets.
func ListenPrivate(path string) (net.Listener, error) {
	ln, err := net.Listen("unix", path)
	if err != nil {
		return nil, fmt.Errorf("unable to listen on %s: %w", path, err)
	}
	if err := os.Chmod(path, 0o600); err != nil {
		ln.Close()
		return nil, fmt.Errorf("unable to restrict %s: %w", path, err)
	}
	return ownerOnly{ln.(*net.UnixListener)}, nil
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
