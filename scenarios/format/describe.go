package format

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// Describe says in a few words what the step does: its name, if it has
// one.
func (st *Step) Describe() string {
	if st.Name != "" {
		return st.Name
	}
	switch action, _ := st.Action(); action {
	case "narrate":
		return "narrate"
	case "apply":
		return "apply " + ApplyWhat(st.Apply)
	case "delete":
		d := "delete " + RefWhat(&st.Delete.ObjectRef)
		if st.Delete.Pick == "random" || st.Delete.Pick == "first" {
			d += " (" + st.Delete.Pick + " one)"
		}
		return d
	case "patch":
		return "patch " + RefWhat(&st.Patch.ObjectRef)
	case "scale":
		return fmt.Sprintf("scale %s to %d", RefWhat(&st.Scale.ObjectRef), st.Scale.Replicas)
	case "expect":
		e := st.Expect
		switch {
		case e.Object != nil:
			ref, _ := RefOf(e.Object)
			return "expect " + RefWhat(&ref) + " to match"
		case e.Absent:
			return "expect " + RefWhat(e.Resource) + " to be gone"
		default:
			return "expect " + RefWhat(e.Resource) + ": " + e.CEL
		}
	case "expectError":
		e := st.ExpectError
		var what string
		switch {
		case e.Apply != nil:
			what = "apply " + ApplyWhat(e.Apply)
		case e.Patch != nil:
			what = "patch " + RefWhat(&e.Patch.ObjectRef)
		case e.Scale != nil:
			what = fmt.Sprintf("scale %s to %d", RefWhat(&e.Scale.ObjectRef), e.Scale.Replicas)
		case e.Delete != nil:
			what = "delete " + RefWhat(&e.Delete.ObjectRef)
		case e.Get != nil:
			what = "get " + RefWhat(e.Get)
		}
		return what + " is refused"
	case "lab":
		l := st.Lab
		switch {
		case l.StopController != "":
			return "stop controller " + l.StopController
		case l.StartController != "":
			return "start controller " + l.StartController
		case l.StopNode != "":
			return "stop node " + l.StopNode
		default:
			return "start node " + l.StartNode
		}
	case "wait":
		return "wait " + st.Wait.String()
	}
	return ""
}

// ApplyWhat names what an apply step applies.
func ApplyWhat(a *Apply) string {
	if a.File != "" {
		return a.File
	}
	u := &unstructured.Unstructured{Object: a.Object}
	return strings.ToLower(u.GetKind()) + "/" + u.GetName()
}

// RefWhat names the objects a reference selects: pod/web-1, pods app=web.
func RefWhat(ref *ObjectRef) string {
	kind := strings.ToLower(ref.Kind)
	switch {
	case ref.Name != "":
		return kind + "/" + ref.Name
	case ref.Selector != "":
		return kind + "s " + ref.Selector
	}
	return "every " + kind
}
