package labtest

import (
	"bytes"
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
)

// The control socket of a lab (its state dir's control.sock): the same
// small HTTP protocol 'crdlab node', 'crdlab reset' and the scenario runner
// use (crdlab's lab/daemon package), spoken here so that this module needs
// nothing of crdlab's.

// Node is a simulated node of the lab and whether its kubelet runs.
type Node struct {
	Name    string `json:"name"`
	Running bool   `json:"running"`
}

// Component is a component of the lab (controller-manager, scheduler,
// nodes, aggregated-api, an operator) and whether it runs.
type Component struct {
	Name    string `json:"name"`
	Running bool   `json:"running"`
}

// ResetOptions say what Reset keeps or removes.
type ResetOptions struct {
	// RemoveCRDs also removes the CustomResourceDefinitions installed since
	// the lab started, the suite's own included (Start installed them).
	RemoveCRDs bool `json:"removeCRDs,omitempty"`
}

type control struct {
	dir string
	hc  *http.Client
}

// dialState checks that a lab runs on dir and returns a client of its
// control socket.
func dialState(dir string) (*control, error) {
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return nil, fmt.Errorf("%w: state dir %s does not exist; start a lab with 'crdlab up -d --state-dir %s'", ErrNotRunning, dir, dir)
	}
	if _, err := os.Stat(filepath.Join(dir, "lab.json")); err != nil {
		return nil, fmt.Errorf("%w on state dir %s (no lab.json); start one with 'crdlab up -d --state-dir %s'", ErrNotRunning, dir, dir)
	}
	path := filepath.Join(dir, "control.sock")
	hc := &http.Client{Transport: &http.Transport{
		DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			return (&net.Dialer{}).DialContext(ctx, "unix", path)
		},
	}}
	return &control{dir: dir, hc: hc}, nil
}

// reasons name the sentinel errors on the wire.
var reasons = map[string]error{
	"UnknownComponent": ErrUnknownComponent,
	"UnknownNode":      ErrUnknownNode,
}

type wireError struct {
	Error  string `json:"error"`
	Reason string `json:"reason,omitempty"`
}

type remoteError struct {
	msg      string
	sentinel error
}

func (e *remoteError) Error() string { return e.msg }
func (e *remoteError) Unwrap() error { return e.sentinel }

func (c *control) components(ctx context.Context) ([]Component, error) {
	var out []Component
	return out, c.call(ctx, http.MethodGet, "/components", nil, &out)
}

func (c *control) nodes(ctx context.Context) ([]Node, error) {
	var out []Node
	return out, c.call(ctx, http.MethodGet, "/nodes", nil, &out)
}

func (c *control) act(ctx context.Context, kind, name, action string) error {
	return c.call(ctx, http.MethodPost, "/"+kind+"/"+name+"/"+action, nil, nil)
}

func (c *control) reset(ctx context.Context, opts ResetOptions) error {
	body, err := json.Marshal(opts)
	if err != nil {
		return err
	}
	return c.call(ctx, http.MethodPost, "/reset", body, nil)
}

func (c *control) call(ctx context.Context, method, path string, body []byte, into any) error {
	var payload io.Reader
	if body != nil {
		payload = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, "http://lab"+path, payload)
	if err != nil {
		return err
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		return fmt.Errorf("unable to reach the lab through %s: %w", filepath.Join(c.dir, "control.sock"), err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	if resp.StatusCode != http.StatusOK {
		var we wireError
		if json.Unmarshal(data, &we) != nil || we.Error == "" {
			return errors.New(strings.TrimSpace(string(data)))
		}
		return &remoteError{msg: we.Error, sentinel: reasons[we.Reason]}
	}
	if into == nil {
		return nil
	}
	if err := json.Unmarshal(data, into); err != nil {
		return fmt.Errorf("unable to read the lab's answer to %s: %w", path, err)
	}
	return nil
}

// lab returns the control client, or ErrNotALab.
func (e *Environment) lab() (*control, error) {
	if e.ctl == nil {
		if e.existing {
			return nil, fmt.Errorf("%w: UseExistingCluster runs on %s, which has no simulated nodes, components to stop or reset", ErrNotALab, e.Config.Host)
		}
		return nil, fmt.Errorf("%w: the environment is not started", ErrNotRunning)
	}
	return e.ctl, nil
}

// Nodes lists the lab's simulated nodes and whether each runs.
func (e *Environment) Nodes(ctx context.Context) ([]Node, error) {
	c, err := e.lab()
	if err != nil {
		return nil, err
	}
	return c.nodes(ctx)
}

// StopNode stops a simulated node as if its machine died: its heartbeats
// stop, the node lifecycle controller marks it NotReady and its Pods are
// evicted and replaced elsewhere (about 30s).
func (e *Environment) StopNode(ctx context.Context, name string) error {
	c, err := e.lab()
	if err != nil {
		return err
	}
	return c.act(ctx, "nodes", name, "stop")
}

// StartNode starts a stopped simulated node again.
func (e *Environment) StartNode(ctx context.Context, name string) error {
	c, err := e.lab()
	if err != nil {
		return err
	}
	return c.act(ctx, "nodes", name, "start")
}

// Components lists the lab's components and whether each runs.
func (e *Environment) Components(ctx context.Context) ([]Component, error) {
	c, err := e.lab()
	if err != nil {
		return nil, err
	}
	return c.components(ctx)
}

// StopComponent stops a component of the lab (controller-manager,
// scheduler, nodes, aggregated-api) until StartComponent or Reset.
func (e *Environment) StopComponent(ctx context.Context, name string) error {
	c, err := e.lab()
	if err != nil {
		return err
	}
	return c.act(ctx, "components", name, "stop")
}

// StartComponent starts a stopped component and returns once it serves.
func (e *Environment) StartComponent(ctx context.Context, name string) error {
	c, err := e.lab()
	if err != nil {
		return err
	}
	return c.act(ctx, "components", name, "start")
}

// Reset brings the lab back to its state right after it started, in tens
// of milliseconds: every namespace and object created since is gone (not
// Terminating), every object deleted since is back, stopped nodes and
// components run again, and the CRDs Start installed stay (unless
// opts.RemoveCRDs). See 'crdlab reset --help'.
func (e *Environment) Reset(ctx context.Context, opts ResetOptions) error {
	c, err := e.lab()
	if err != nil {
		return err
	}
	return c.reset(ctx, opts)
}
