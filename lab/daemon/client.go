package daemon

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/crdlab/crdlab/lab/timeline"
)

// Client is a client of a running lab's control socket. Its errors wrap the
// same sentinel errors (ErrUnknownComponent, ErrUnknownNode) as the lab's.
type Client struct {
	d  Dir
	hc *http.Client
}

// Dial returns a client for the lab running on d, or ErrNotRunning.
func Dial(d Dir) (*Client, error) {
	if _, err := d.Status(); err != nil {
		return nil, err
	}
	return socketClient(d), nil
}

// socketClient returns a client of d's control socket.
func socketClient(d Dir) *Client {
	path := d.ControlSocket()
	hc := &http.Client{Transport: &http.Transport{
		DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			return (&net.Dialer{}).DialContext(ctx, "unix", path)
		},
	}}
	return &Client{d: d, hc: hc}
}

// Components lists the components of the lab that can be stopped.
func (c *Client) Components(ctx context.Context) ([]Component, error) {
	var out []Component
	return out, c.get(ctx, "/components", &out)
}

// StopComponent stops a component of the lab (see lab.Lab.StopComponent).
func (c *Client) StopComponent(ctx context.Context, name string) error {
	return c.post(ctx, "/components/"+name+"/stop")
}

// StartComponent starts a stopped component of the lab.
func (c *Client) StartComponent(ctx context.Context, name string) error {
	return c.post(ctx, "/components/"+name+"/start")
}

// Nodes lists the simulated nodes of the lab.
func (c *Client) Nodes(ctx context.Context) ([]Node, error) {
	var out []Node
	return out, c.get(ctx, "/nodes", &out)
}

// StopNode stops a simulated node of the lab.
func (c *Client) StopNode(ctx context.Context, name string) error {
	return c.post(ctx, "/nodes/"+name+"/stop")
}

// StartNode starts a stopped simulated node of the lab.
func (c *Client) StartNode(ctx context.Context, name string) error {
	return c.post(ctx, "/nodes/"+name+"/start")
}

// Reset brings the lab back to its state right after it started (see
// lab.Lab.Reset).
func (c *Client) Reset(ctx context.Context, opts ResetOptions) error {
	body, err := json.Marshal(opts)
	if err != nil {
		return err
	}
	resp, err := c.send(ctx, http.MethodPost, "/reset", bytes.NewReader(body))
	if err != nil {
		return err
	}
	return resp.Body.Close()
}

// Events streams the lab's own events (reconcile passes of its operators,
// requests its aggregated API server answers) into sink until ctx is done
// or the lab stops. ready, if not nil, is called once the stream is open.
func (c *Client) Events(ctx context.Context, sink timeline.Sink, ready func()) error {
	resp, err := c.do(ctx, http.MethodGet, "/events")
	if err != nil {
		return err
	}
	defer resp.Body.Close()
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

// Report opens a stream of report entries to the lab (a scenario run's,
// for the web UI of 'crdlab up'): report sends one, JSON-encoded, without
// waiting; end ends the stream once what was sent has reached the lab,
// or after a second. A lab that cannot be reached, or is too slow, loses
// entries rather than slowing the run down.
func (c *Client) Report(ctx context.Context) (report func(any), end func()) {
	pr, pw := io.Pipe()
	queue := make(chan []byte, 1024)
	done := make(chan struct{})
	go func() {
		defer close(done)
		resp, err := c.send(ctx, http.MethodPost, "/reports", pr)
		if err == nil {
			resp.Body.Close()
		}
		pr.CloseWithError(errors.New("the lab closed the stream"))
	}()
	sent := make(chan struct{})
	go func() {
		defer close(sent)
		defer pw.Close()
		for b := range queue {
			if _, err := pw.Write(b); err != nil {
				for range queue { // drain: the lab is gone
				}
				return
			}
		}
	}()
	var once sync.Once
	var mu sync.Mutex
	closed := false
	report = func(entry any) {
		b, err := json.Marshal(entry)
		if err != nil {
			return
		}
		mu.Lock()
		defer mu.Unlock()
		if closed {
			return
		}
		select {
		case queue <- append(b, '\n'):
		default: // the lab does not keep up: lose this one
		}
	}
	return report, func() {
		once.Do(func() {
			mu.Lock()
			closed = true
			close(queue)
			mu.Unlock()
			select {
			case <-sent:
			case <-time.After(time.Second):
			}
			pw.Close()
			select {
			case <-done:
			case <-time.After(time.Second):
			}
		})
	}
}

func (c *Client) get(ctx context.Context, path string, into any) error {
	resp, err := c.do(ctx, http.MethodGet, path)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if err := json.NewDecoder(resp.Body).Decode(into); err != nil {
		return fmt.Errorf("unable to read the lab's answer to %s: %w", path, err)
	}
	return nil
}

func (c *Client) post(ctx context.Context, path string) error {
	resp, err := c.do(ctx, http.MethodPost, path)
	if err != nil {
		return err
	}
	return resp.Body.Close()
}

// do sends a request; an answer other than 200 becomes an error wrapping the
// sentinel error the lab named.
func (c *Client) do(ctx context.Context, method, path string) (*http.Response, error) {
	return c.send(ctx, method, path, nil)
}

func (c *Client) send(ctx context.Context, method, path string, payload io.Reader) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, method, "http://lab"+path, payload)
	if err != nil {
		return nil, err
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		return nil, fmt.Errorf("unable to reach the lab through %s: %w", c.d.ControlSocket(), err)
	}
	if resp.StatusCode == http.StatusOK {
		return resp, nil
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	var we wireError
	if json.Unmarshal(body, &we) != nil || we.Error == "" {
		return nil, errors.New(strings.TrimSpace(string(body)))
	}
	return nil, &remoteError{msg: we.Error, sentinel: reasons[we.Reason]}
}
