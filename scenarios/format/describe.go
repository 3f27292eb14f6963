package format

import (
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/crdlab/crdlab/lab/lang"
)

// Describe says in a few words what the step does: its name, if it has
// one; in the language of the scenario it belongs to (Scenario.In).
func (st *Step) Describe() string {
	if st.Name != "" {
		return st.Name
	}
	l := st.lang
	switch action, _ := st.Action(); action {
	case "narrate":
		return l.Msg("narrate")
	case "apply":
		return l.Msgf("apply %s", ApplyWhat(st.Apply))
	case "delete":
		what := refWhat(l, &st.Delete.ObjectRef)
		switch st.Delete.Pick {
		case "random":
			return l.Msgf("delete %s (random one)", what)
		case "first":
			return l.Msgf("delete %s (first one)", what)
		}
		return l.Msgf("delete %s", what)
	case "patch":
		if st.Patch.Subresource != "" {
			return l.Msgf("patch %s", refWhat(l, &st.Patch.ObjectRef)+" "+st.Patch.Subresource)
		}
		return l.Msgf("patch %s", refWhat(l, &st.Patch.ObjectRef))
	case "scale":
		return l.Msgf("scale %s to %d", refWhat(l, &st.Scale.ObjectRef), st.Scale.Replicas)
	case "expect":
		e := st.Expect
		switch {
		case e.Object != nil:
			ref, _ := RefOf(e.Object)
			return l.Msgf("expect %s to match", refWhat(l, &ref))
		case e.Absent:
			return l.Msgf("expect %s to be gone", refWhat(l, e.Resource))
		default:
			return l.Msgf("expect %s: %s", refWhat(l, e.Resource), e.CEL)
		}
	case "expectError":
		return l.Msgf("%s is refused", st.ExpectError.What(l))
	case "lab":
		a := st.Lab
		switch {
		case a.StopController != "":
			return l.Msgf("stop controller %s", a.StopController)
		case a.StartController != "":
			return l.Msgf("start controller %s", a.StartController)
		case a.StopNode != "":
			return l.Msgf("stop node %s", a.StopNode)
		case a.StopNodes != "":
			return l.Msgf("stop the nodes %s", a.StopNodes)
		case a.StartNodes != "":
			return l.Msgf("start the nodes %s", a.StartNodes)
		default:
			return l.Msgf("start node %s", a.StartNode)
		}
	case "wait":
		return l.Msgf("wait %s", st.Wait.String())
	case "task":
		line, _, _ := strings.Cut(strings.TrimSpace(st.Task.Text), "\n")
		return l.Msgf("task: %s", line)
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
func RefWhat(ref *ObjectRef) string { return refWhat(lang.EN, ref) }

func refWhat(l lang.Lang, ref *ObjectRef) string {
	kind := strings.ToLower(ref.Kind)
	switch {
	case ref.Name != "":
		return kind + "/" + ref.Name
	case ref.Selector != "":
		return l.Msgf("%ss %s", kind, ref.Selector)
	}
	return l.Msgf("every %s", kind)
}

// What names the write (or read) that must be refused, in the language.
func (e *ExpectError) What(l lang.Lang) string {
	switch {
	case e.Apply != nil:
		return l.Msgf("apply %s", ApplyWhat(e.Apply))
	case e.Patch != nil:
		return l.Msgf("patch %s", refWhat(l, &e.Patch.ObjectRef))
	case e.Scale != nil:
		return l.Msgf("scale %s to %d", refWhat(l, &e.Scale.ObjectRef), e.Scale.Replicas)
	case e.Delete != nil:
		return l.Msgf("delete %s", refWhat(l, &e.Delete.ObjectRef))
	case e.Get != nil:
		return l.Msgf("get %s", refWhat(l, e.Get))
	}
	return ""
}

// RefWhatIn is RefWhat in the language l.
func RefWhatIn(l lang.Lang, ref *ObjectRef) string { return refWhat(l, ref) }
