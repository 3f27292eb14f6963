package ui

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"embed"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/crdlab/crdlab/lab/lang"
	"github.com/crdlab/crdlab/lab/timeline"
)

//go:embed static
var static embed.FS

// cookiePrefix names the cookie that holds the token once the page has
// been opened with it: crdlab-ui-<port>. A browser sends a cookie of
// 127.0.0.1 to every port of it: one name per port keeps two labs' tokens
// apart.
const cookiePrefix = "crdlab-ui-"

// ErrPortInUse: the UI's port is taken.
var ErrPortInUse = errors.New("port in use")

// Server serves the web UI of a lab. It is a timeline.Sink (the lines of
// the timeline), its Observe follows the objects (timeline.Options.Observe)
// and its Report takes the report entries of scenario runs.
type Server struct {
	// Lang is the language the page opens in until the user picks one
	// (the lab's: 'crdlab up --lang'). "": English.
	Lang lang.Lang
	// Course, if set, returns the course map with the learner's progress
	// now (GET /api/course); nil: the lab serves no course.
	Course func() ([]Lesson, error)
	// Hint, if set, asks the running lesson for its task's next hint
	// (POST /api/hint, the task pane's hint button): the hint, or why
	// there is none; an error worded in l (the page's language), wrapping
	// ErrNoLesson when no lesson runs.
	Hint func(ctx context.Context, l lang.Lang) (string, error)

	store  *store
	token  string
	cookie string // cookiePrefix and the port
	ln     net.Listener
	srv    *http.Server
}

// Listen makes the UI's server, listening on 127.0.0.1:port (0: a free
// port) with a new random token. Serve serves it.
func Listen(port int) (*Server, error) {
	ln, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", port))
	if err != nil {
		if errors.Is(err, syscall.EADDRINUSE) {
			return nil, lang.Errorf("%w: 127.0.0.1:%d serves something else already", ErrPortInUse, port)
		}
		return nil, fmt.Errorf("unable to listen on 127.0.0.1:%d: %w", port, err)
	}
	b := make([]byte, 24)
	if _, err := rand.Read(b); err != nil {
		ln.Close()
		return nil, err
	}
	s := &Server{store: newStore(), token: hex.EncodeToString(b), ln: ln,
		cookie: cookiePrefix + strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)}
	s.srv = &http.Server{Handler: s.Handler(), ReadHeaderTimeout: 5 * time.Second}
	return s, nil
}

// Address is the UI's address, without the token: http://127.0.0.1:PORT/.
func (s *Server) Address() string { return "http://" + s.ln.Addr().String() + "/" }

// URL is the address to open, with the token.
func (s *Server) URL() string { return s.Address() + "?token=" + s.token }

// Token is the token the UI asks for.
func (s *Server) Token() string { return s.token }

// Serve serves the UI until ctx is done, then closes its connections.
func (s *Server) Serve(ctx context.Context) {
	go func() {
		<-ctx.Done()
		_ = s.srv.Close()
	}()
	go func() { _ = s.srv.Serve(s.ln) }()
}

// Close stops serving (Serve's ctx being done does too).
func (s *Server) Close() { _ = s.srv.Close(); _ = s.ln.Close() }

// Record takes a line of the timeline.
func (s *Server) Record(e timeline.Event) { s.store.record(e) }

// Observe takes a change of an object (timeline.Options.Observe).
func (s *Server) Observe(c timeline.Change) { s.store.observe(c) }

// Report takes a report entry of a scenario run (one JSON object).
func (s *Server) Report(entry json.RawMessage) { s.store.report(entry) }

// Handler is the UI's HTTP handler, token check included.
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	files, _ := fs.Sub(static, "static")
	mux.Handle("GET /", http.FileServerFS(files))
	mux.HandleFunc("GET /lang.js", s.langJS)
	mux.HandleFunc("GET /api/state", func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, s.store.snapshot())
	})
	mux.HandleFunc("GET /api/object", func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		uid := q.Get("uid")
		if uid == "" && q.Get("name") != "" {
			uid = s.store.find(q.Get("kind"), q.Get("namespace"), q.Get("name"))
		}
		p, ok := s.store.page(uid)
		if !ok {
			http.Error(w, "no such object: it was never seen, or deleted long ago", http.StatusNotFound)
			return
		}
		writeJSON(w, p)
	})
	mux.HandleFunc("GET /api/group", func(w http.ResponseWriter, r *http.Request) {
		p, ok := s.store.groupPage(r.URL.Query().Get("owner"), r.URL.Query().Get("state"))
		if !ok {
			http.Error(w, "no such group: its owner has no Pods now", http.StatusNotFound)
			return
		}
		writeJSON(w, p)
	})
	mux.HandleFunc("GET /api/stream", s.stream)
	mux.HandleFunc("GET /api/course", s.course)
	mux.HandleFunc("POST /api/hint", s.hint)
	return s.guard(mux)
}

// guard serves only requests that carry the token, in the query (the
// printed URL), the cookie the page got with it, or an Authorization:
// Bearer header; and only for the UI's own host name, so that a page of
// another site cannot reach it through a name that resolves to 127.0.0.1
// (DNS rebinding).
func (s *Server) guard(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		host, _, err := net.SplitHostPort(r.Host)
		if err != nil {
			host = r.Host
		}
		if host != "127.0.0.1" && host != "localhost" {
			http.Error(w, fmt.Sprintf("crdlab ui: host %q refused: open the UI at 127.0.0.1", r.Host), http.StatusMisdirectedRequest)
			return
		}
		if q := r.URL.Query().Get("token"); q != "" {
			if !s.valid(q) {
				http.Error(w, "crdlab ui: wrong token: open the URL 'crdlab up' printed ('crdlab status' shows it)", http.StatusUnauthorized)
				return
			}
			http.SetCookie(w, &http.Cookie{Name: s.cookie, Value: s.token, Path: "/", HttpOnly: true, SameSite: http.SameSiteStrictMode})
			if r.URL.Path == "/" {
				// Take the token out of the address bar and history.
				u := *r.URL
				q := u.Query()
				q.Del("token")
				u.RawQuery = q.Encode()
				http.Redirect(w, r, (&url.URL{Path: u.Path, RawQuery: u.RawQuery}).String(), http.StatusSeeOther)
				return
			}
			next.ServeHTTP(w, r)
			return
		}
		if c, err := r.Cookie(s.cookie); err == nil && s.valid(c.Value) {
			next.ServeHTTP(w, r)
			return
		}
		if t, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer "); ok && s.valid(t) {
			next.ServeHTTP(w, r)
			return
		}
		http.Error(w, "crdlab ui: this page needs the lab's token: open the URL 'crdlab up' printed ('crdlab status' shows it)", http.StatusUnauthorized)
	})
}

func (s *Server) valid(t string) bool {
	return subtle.ConstantTimeCompare([]byte(t), []byte(s.token)) == 1
}

// stream sends the snapshot, then every change, as server-sent events.
func (s *Server) stream(w http.ResponseWriter, r *http.Request) {
	flusher, ok := w.(http.Flusher)
	if !ok {
		http.Error(w, "streaming unsupported", http.StatusInternalServerError)
		return
	}
	snapshot, ch, cancel := s.store.subscribe()
	defer cancel()
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	write := func(b []byte) bool {
		if _, err := fmt.Fprintf(w, "data: %s\n\n", b); err != nil {
			return false
		}
		flusher.Flush()
		return true
	}
	if !write(snapshot) {
		return
	}
	keepalive := time.NewTicker(15 * time.Second)
	defer keepalive.Stop()
	for {
		select {
		case <-r.Context().Done():
			return
		case b, open := <-ch:
			if !open || !write(b) {
				return // fell behind: the page reconnects and starts over
			}
		case <-keepalive.C:
			if _, err := fmt.Fprint(w, ": keepalive\n\n"); err != nil {
				return
			}
			flusher.Flush()
		}
	}
}

func writeJSON(w http.ResponseWriter, v any) { writeJSONStatus(w, http.StatusOK, v) }

func writeJSONStatus(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(v)
}
