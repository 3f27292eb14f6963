package control

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
	"time"
)

// Client is a client of a running lab's control socket. Its errors wrap
// the same sentinel errors (ErrUnknownComponent, ErrUnknownNode) as the
// lab's.
type Client struct {
	d  Dir
	hc *http.Client
}

// Dial returns a client for the lab running on d, or an error wrapping
// ErrNotRunning.
func Dial(d Dir) (*Client, error) {
	if _, err := d.Status(); err != nil {
		return nil, err
	}
	return NewClient(d), nil
}

// NewClient returns a client of d's control socket without checking that
// a lab runs there (Dial does): for a process that cannot read the state
// dir's status, or a test of the socket itself.
func NewClient(d Dir) *Client {
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
	return out, c.get(ctx, RouteComponents, &out)
}

// StopComponent stops a component of the lab until it is started again or
// the lab is reset.
func (c *Client) StopComponent(ctx context.Context, name string) error {
	return c.post(ctx, RouteStopComponent, name, nil)
}

// StartComponent starts a stopped component of the lab and returns once it
// serves.
func (c *Client) StartComponent(ctx context.Context, name string) error {
	return c.post(ctx, RouteStartComponent, name, nil)
}

// Nodes lists the simulated nodes of the lab.
func (c *Client) Nodes(ctx context.Context) ([]Node, error) {
	var out []Node
	return out, c.get(ctx, RouteNodes, &out)
}

// StopNode stops a simulated node of the lab, as if its machine died.
func (c *Client) StopNode(ctx context.Context, name string) error {
	return c.post(ctx, RouteStopNode, name, nil)
}

// StartNode starts a stopped simulated node of the lab.
func (c *Client) StartNode(ctx context.Context, name string) error {
	return c.post(ctx, RouteStartNode, name, nil)
}

// Reset brings the lab back to its state right after it started ('crdlab
// reset --help' says what goes and what stays).
func (c *Client) Reset(ctx context.Context, opts ResetOptions) error {
	body, err := json.Marshal(opts)
	if err != nil {
		return err
	}
	return c.post(ctx, RouteReset, "", body)
}

// Events streams the lab's own events (reconcile passes of its operators,
// requests its aggregated API server answers) to record, one JSON object
// each, until ctx is done (then it returns nil) or the lab stops. ready,
// if not nil, is called once the stream is open.
func (c *Client) Events(ctx context.Context, record func(json.RawMessage), ready func()) error {
	return c.stream(ctx, RouteEvents, "events", record, func(*http.Response) error {
		if ready != nil {
			ready()
		}
		return nil
	})
}

// Timeline streams the lab's timeline (RouteTimeline: every change in the
// cluster and the lab's own events, in the cluster's order) to record,
// one JSON object each, until ctx is done (then it returns nil) or the
// lab stops. ready, if not nil, is called once the stream is open (the
// changes made after it are in it), with how long the lab holds each line
// for the lines before it (TimelineHoldHeader; 0 from a lab that does not
// say).
func (c *Client) Timeline(ctx context.Context, record func(json.RawMessage), ready func(hold time.Duration)) error {
	return c.stream(ctx, RouteTimeline, "timeline", record, func(resp *http.Response) error {
		var hold time.Duration
		if h := resp.Header.Get(TimelineHoldHeader); h != "" {
			var err error
			if hold, err = time.ParseDuration(h); err != nil {
				return fmt.Errorf("the lab's timeline on %s: header %s: %w", c.d.ControlSocket(), TimelineHoldHeader, err)
			}
		}
		if ready != nil {
			ready(hold)
		}
		return nil
	})
}

// stream reads route's stream of JSON objects, what of the lab; open is
// given the answer once the stream is open.
func (c *Client) stream(ctx context.Context, route Route, what string, record func(json.RawMessage), open func(*http.Response) error) error {
	resp, err := c.send(ctx, route, "", nil)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if err := open(resp); err != nil {
		return err
	}
	dec := json.NewDecoder(resp.Body)
	for {
		var e json.RawMessage
		if err := dec.Decode(&e); err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return fmt.Errorf("unable to read the lab's %s from %s: %w", what, c.d.ControlSocket(), err)
		}
		record(e)
	}
}

func (c *Client) get(ctx context.Context, route Route, into any) error {
	resp, err := c.send(ctx, route, "", nil)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if err := json.NewDecoder(resp.Body).Decode(into); err != nil {
		return fmt.Errorf("unable to read the lab's answer to %s: %w", route, err)
	}
	return nil
}

func (c *Client) post(ctx context.Context, route Route, name string, body []byte) error {
	var payload io.Reader
	if body != nil {
		payload = bytes.NewReader(body)
	}
	resp, err := c.send(ctx, route, name, payload)
	if err != nil {
		return err
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	return resp.Body.Close()
}

// send sends a request on route; an answer other than 200 becomes an
// error, an *Error when the lab said why.
func (c *Client) send(ctx context.Context, route Route, name string, payload io.Reader) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, route.Method(), "http://lab"+route.Path(name), payload)
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
	data, _ := io.ReadAll(resp.Body)
	var we Error
	if json.Unmarshal(data, &we) != nil || we.Message == "" {
		return nil, errors.New(strings.TrimSpace(string(data)))
	}
	return nil, &we
}
