package control

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"
)

// Pass is a reconcile pass of a controller that runs outside the lab's
// process (a suite's own operator, through the labtest/trace wrapper), as
// it goes to the lab's timeline (RoutePasses). The lab shows it as the
// sample operators' passes are shown: a RECONCILE line in the controller's
// lane, ordered by its end.
type Pass struct {
	// Controller names the controller: the lane of its lines.
	Controller string `json:"controller"`
	// Kind is the kind it reconciles (Guestbook).
	Kind      string `json:"kind"`
	Namespace string `json:"namespace,omitempty"`
	Name      string `json:"name"`
	// Start is when the pass started, Duration how long it took.
	Start    time.Time     `json:"start"`
	Duration time.Duration `json:"duration"`
	// Triggers are the watch events that queued the pass; none: a requeue,
	// or an event the wrapper could not attribute.
	Triggers []Trigger `json:"triggers,omitempty"`
	// Writes are the writes the pass made, in order.
	Writes []Write `json:"writes,omitempty"`
	// RequeueAfter is the requeue the pass asked for, if any.
	RequeueAfter time.Duration `json:"requeueAfter,omitempty"`
	// Requeue: the pass asked to be requeued with back-off.
	Requeue bool `json:"requeue,omitempty"`
	// Error is the error the pass returned, if any.
	Error string `json:"error,omitempty"`
	// Terminal: Error is terminal (reconcile.TerminalError), not retried.
	Terminal bool `json:"terminal,omitempty"`
}

// Trigger is a watch event that queued a pass: an object and what
// happened to it.
type Trigger struct {
	Kind      string `json:"kind"`
	Namespace string `json:"namespace,omitempty"`
	Name      string `json:"name"`
	// Change: created, spec changed, status or metadata updated, being
	// deleted, deleted, event.
	Change string `json:"change"`
}

// Write is a write a pass made through its client.
type Write struct {
	// Verb is the timeline's: CREATE, UPDATE, STATUS, DELETE.
	Verb      string `json:"verb"`
	Kind      string `json:"kind"`
	Namespace string `json:"namespace,omitempty"`
	Name      string `json:"name"`
	// Error is why the apiserver refused it, if it did.
	Error string `json:"error,omitempty"`
}

// Object returns the trigger's object as kubectl names it: deployment/web.
func (t Trigger) Object() string { return strings.ToLower(t.Kind) + "/" + t.Name }

// Object returns the written object as kubectl names it: deployment/web.
func (w Write) Object() string { return strings.ToLower(w.Kind) + "/" + w.Name }

// Passes sends reconcile passes to the lab, which puts them on its
// timeline, and returns once the lab has them.
func (c *Client) Passes(ctx context.Context, passes []Pass) error {
	var body []byte
	for _, p := range passes {
		b, err := json.Marshal(p)
		if err != nil {
			return fmt.Errorf("unable to encode the pass of %s on %s/%s: %w", p.Controller, p.Namespace, p.Name, err)
		}
		body = append(append(body, b...), '\n')
	}
	return c.post(ctx, RoutePasses, "", body)
}
