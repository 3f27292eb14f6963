package control

import "errors"

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

// ResetOptions say what a reset keeps or removes.
type ResetOptions struct {
	// RemoveCRDs also removes the CustomResourceDefinitions created since
	// the lab started (and the APIServices the apiserver made for them).
	// By default they stay, so that a suite installs its CRDs once and
	// resets between specs; their custom resources go either way.
	RemoveCRDs bool `json:"removeCRDs,omitempty"`
}

// Sentinel errors. They are the same values in the lab's process and in a
// client of its control socket, so that errors.Is works on both sides.
var (
	// ErrUnknownComponent: the lab has no component of that name.
	ErrUnknownComponent = errors.New("unknown component")
	// ErrUnknownNode: the lab has no simulated node of that name.
	ErrUnknownNode = errors.New("unknown node")
	// ErrRunning: a lab already runs on the state dir.
	ErrRunning = errors.New("a lab is already running")
	// ErrNotRunning: no lab runs on the state dir.
	ErrNotRunning = errors.New("no lab is running")
)

// reasons name on the wire the sentinel errors a lab's answer can wrap.
var reasons = map[string]error{
	"UnknownComponent": ErrUnknownComponent,
	"UnknownNode":      ErrUnknownNode,
}

// Error is an error a lab answered with, as it goes over the wire (the
// body of an answer other than 200 OK): its message, and the reason that
// names the sentinel error it wraps, if any. A client returns it as it is:
// errors.Is(err, ErrUnknownNode) works on it.
type Error struct {
	Message string `json:"error"`
	Reason  string `json:"reason,omitempty"`
}

// WireError returns err as a lab answers it.
func WireError(err error) *Error {
	e := &Error{Message: err.Error()}
	for reason, s := range reasons {
		if errors.Is(err, s) {
			e.Reason = reason
		}
	}
	return e
}

func (e *Error) Error() string { return e.Message }

// Unwrap returns the sentinel error Reason names, or nil.
func (e *Error) Unwrap() error { return reasons[e.Reason] }
