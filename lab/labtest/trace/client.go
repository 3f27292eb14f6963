package trace

import (
	"context"
	"sync"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crdlab/crdlab/lab/labtest/control"
)

// The timeline's verbs of a write.
const (
	verbCreate = "CREATE"
	verbUpdate = "UPDATE"
	verbStatus = "STATUS" // through the status subresource
	verbDelete = "DELETE"
)

// NewClient is client.New with WrapClient around it: a manager's NewClient
// (ctrl.Options{NewClient: trace.NewClient}) whose client notes the writes
// of each traced pass.
func NewClient(cfg *rest.Config, opts client.Options) (client.Client, error) {
	c, err := client.New(cfg, opts)
	if err != nil {
		return nil, err
	}
	return WrapClient(c), nil
}

// WrapClient returns c noting each write made with the context of a traced
// reconcile pass (ControllerManagedBy) in that pass, for the lab's
// timeline. Any other call, and every call outside a traced pass, goes to
// c as it is.
func WrapClient(c client.Client) client.Client {
	if _, ok := c.(tracingClient); ok {
		return c
	}
	return tracingClient{Client: c}
}

type passKey struct{}

// writes collects the writes of one pass.
type writes struct {
	mu   sync.Mutex
	list []control.Write
}

func (w *writes) take() []control.Write {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.list
}

// note files a write of obj in ctx's pass, if any, once the apiserver
// answered (a created object has its generated name then).
func note(ctx context.Context, scheme *runtime.Scheme, verb string, obj client.Object, err error) {
	noteWrite(ctx, control.Write{Verb: verb, Kind: kindOf(obj, scheme), Namespace: obj.GetNamespace(), Name: obj.GetName()}, err)
}

// noteWrite files write in ctx's pass, if any, with the apiserver's
// refusal, if it refused.
func noteWrite(ctx context.Context, write control.Write, err error) {
	w, ok := ctx.Value(passKey{}).(*writes)
	if !ok {
		return
	}
	if err != nil {
		write.Error = string(apierrors.ReasonForError(err))
		if write.Error == "" {
			write.Error = err.Error()
		}
	}
	w.mu.Lock()
	w.list = append(w.list, write)
	w.mu.Unlock()
}

type tracingClient struct {
	client.Client
}

func (c tracingClient) Create(ctx context.Context, obj client.Object, opts ...client.CreateOption) error {
	err := c.Client.Create(ctx, obj, opts...)
	note(ctx, c.Scheme(), verbCreate, obj, err)
	return err
}

func (c tracingClient) Update(ctx context.Context, obj client.Object, opts ...client.UpdateOption) error {
	err := c.Client.Update(ctx, obj, opts...)
	note(ctx, c.Scheme(), verbUpdate, obj, err)
	return err
}

func (c tracingClient) Patch(ctx context.Context, obj client.Object, patch client.Patch, opts ...client.PatchOption) error {
	err := c.Client.Patch(ctx, obj, patch, opts...)
	note(ctx, c.Scheme(), verbUpdate, obj, err)
	return err
}

func (c tracingClient) Apply(ctx context.Context, obj runtime.ApplyConfiguration, opts ...client.ApplyOption) error {
	err := c.Client.Apply(ctx, obj, opts...)
	if o, ok := obj.(applied); ok && o.GetName() != nil {
		w := control.Write{Verb: verbUpdate, Kind: unknownKindFor, Name: *o.GetName()}
		if o.GetKind() != nil {
			w.Kind = *o.GetKind()
		}
		if o.GetNamespace() != nil {
			w.Namespace = *o.GetNamespace()
		}
		noteWrite(ctx, w, err)
	}
	return err
}

// applied is what an apply configuration says of its object.
type applied interface {
	GetName() *string
	GetNamespace() *string
	GetKind() *string
}

func (c tracingClient) Delete(ctx context.Context, obj client.Object, opts ...client.DeleteOption) error {
	err := c.Client.Delete(ctx, obj, opts...)
	note(ctx, c.Scheme(), verbDelete, obj, err)
	return err
}

func (c tracingClient) DeleteAllOf(ctx context.Context, obj client.Object, opts ...client.DeleteAllOfOption) error {
	err := c.Client.DeleteAllOf(ctx, obj, opts...)
	noteWrite(ctx, control.Write{Verb: verbDelete, Kind: kindOf(obj, c.Scheme()), Namespace: obj.GetNamespace(), Name: "*"}, err)
	return err
}

func (c tracingClient) Status() client.SubResourceWriter {
	return tracingSubResource{SubResourceWriter: c.Client.Status(), scheme: c.Scheme(), verb: verbStatus}
}

func (c tracingClient) SubResource(name string) client.SubResourceClient {
	sub := c.Client.SubResource(name)
	verb := verbUpdate + " " + name
	if name == "status" {
		verb = verbStatus
	}
	return tracingSubResourceClient{SubResourceClient: sub, w: tracingSubResource{SubResourceWriter: sub, scheme: c.Scheme(), verb: verb}}
}

type tracingSubResource struct {
	client.SubResourceWriter
	scheme *runtime.Scheme
	verb   string
}

func (s tracingSubResource) Create(ctx context.Context, obj, sub client.Object, opts ...client.SubResourceCreateOption) error {
	err := s.SubResourceWriter.Create(ctx, obj, sub, opts...)
	note(ctx, s.scheme, s.verb, obj, err)
	return err
}

func (s tracingSubResource) Update(ctx context.Context, obj client.Object, opts ...client.SubResourceUpdateOption) error {
	err := s.SubResourceWriter.Update(ctx, obj, opts...)
	note(ctx, s.scheme, s.verb, obj, err)
	return err
}

func (s tracingSubResource) Patch(ctx context.Context, obj client.Object, patch client.Patch, opts ...client.SubResourcePatchOption) error {
	err := s.SubResourceWriter.Patch(ctx, obj, patch, opts...)
	note(ctx, s.scheme, s.verb, obj, err)
	return err
}

type tracingSubResourceClient struct {
	client.SubResourceClient
	w tracingSubResource
}

func (s tracingSubResourceClient) Create(ctx context.Context, obj, sub client.Object, opts ...client.SubResourceCreateOption) error {
	return s.w.Create(ctx, obj, sub, opts...)
}

func (s tracingSubResourceClient) Update(ctx context.Context, obj client.Object, opts ...client.SubResourceUpdateOption) error {
	return s.w.Update(ctx, obj, opts...)
}

func (s tracingSubResourceClient) Patch(ctx context.Context, obj client.Object, patch client.Patch, opts ...client.SubResourcePatchOption) error {
	return s.w.Patch(ctx, obj, patch, opts...)
}
