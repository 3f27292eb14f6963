package scenarios

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/dynamic"
)

// namespaceVar is replaced, in every string of a step, by the scenario's
// namespace.
const namespaceVar = "${NAMESPACE}"

// expand replaces namespaceVar by the scenario's namespace in every string
// of v (an object, a map, a list), in place, and returns v.
func (r *runner) expand(v any) any {
	switch t := v.(type) {
	case string:
		return strings.ReplaceAll(t, namespaceVar, r.ns)
	case map[string]any:
		for k, e := range t {
			t[k] = r.expand(e)
		}
	case []any:
		for i, e := range t {
			t[i] = r.expand(e)
		}
	}
	return v
}

// ref returns a copy of ref with its strings expanded.
func (r *runner) ref(ref *ObjectRef) *ObjectRef {
	out := *ref
	for _, f := range []*string{&out.Name, &out.Namespace, &out.Selector} {
		*f = r.expand(*f).(string)
	}
	return &out
}

// resource maps a kind to its resource and namespace; a kind a CRD of the
// scenario just added is found by rediscovering, for up to 10 seconds.
func (r *runner) resource(ctx context.Context, apiVersion, kind, namespace string) (dynamic.ResourceInterface, *meta.RESTMapping, error) {
	gv, err := schema.ParseGroupVersion(apiVersion)
	if err != nil {
		return nil, nil, fmt.Errorf("apiVersion %q: %w", apiVersion, err)
	}
	gvk := gv.WithKind(kind)
	var m *meta.RESTMapping
	err = wait.PollUntilContextTimeout(ctx, 250*time.Millisecond, 10*time.Second, true, func(context.Context) (bool, error) {
		m, err = r.mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
		if meta.IsNoMatchError(err) {
			r.mapper.Reset()
			m, err = r.mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
		}
		return err == nil || !meta.IsNoMatchError(err) || !r.expectingKind(gvk), nil
	})
	if err != nil {
		return nil, nil, err
	}
	if m == nil {
		return nil, nil, fmt.Errorf("no matches for kind %q in version %q", kind, apiVersion)
	}
	if m.Scope.Name() == meta.RESTScopeNameRoot {
		return r.dyn.Resource(m.Resource), m, nil
	}
	if namespace == "" {
		namespace = r.ns
	}
	return r.dyn.Resource(m.Resource).Namespace(namespace), m, nil
}

// expectingKind reports whether the scenario created a CRD for gvk: only
// then is a missing kind waited for (the apiserver's discovery lags a newly
// established CRD); otherwise "no matches for kind" is the answer.
func (r *runner) expectingKind(gvk schema.GroupVersionKind) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, u := range r.created {
		if u.GetKind() != "CustomResourceDefinition" {
			continue
		}
		group, _, _ := unstructured.NestedString(u.Object, "spec", "group")
		kind, _, _ := unstructured.NestedString(u.Object, "spec", "names", "kind")
		if group == gvk.Group && kind == gvk.Kind {
			return true
		}
	}
	return false
}

// selectObjects returns the objects ref names: the one named, or those its
// selector matches, sorted by name.
func (r *runner) selectObjects(ctx context.Context, ref *ObjectRef) (dynamic.ResourceInterface, []unstructured.Unstructured, error) {
	ref = r.ref(ref)
	ri, _, err := r.resource(ctx, ref.APIVersion, ref.Kind, ref.Namespace)
	if err != nil {
		return nil, nil, err
	}
	if ref.Name != "" {
		u, err := ri.Get(ctx, ref.Name, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return ri, nil, nil
		}
		if err != nil {
			return nil, nil, err
		}
		return ri, []unstructured.Unstructured{*u}, nil
	}
	list, err := ri.List(ctx, metav1.ListOptions{LabelSelector: ref.Selector})
	if err != nil {
		return nil, nil, err
	}
	items := list.Items
	sort.Slice(items, func(i, j int) bool { return items[i].GetName() < items[j].GetName() })
	return ri, items, nil
}
