package scenarios

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"sort"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/wait"
	"sigs.k8s.io/yaml"

	"github.com/crdlab/crdlab/lab/lang"
	"github.com/crdlab/crdlab/scenarios/format"
)

// expectOp polls until the expectation holds or the timeout passes: a
// partial object matches, a CEL expression over the objects holds, or they
// are absent. On failure the error shows what was expected, what was
// there, and the difference.
type expectOp struct{ *Expect }

func (op expectOp) run(ctx context.Context, r *runner, timeout time.Duration) (string, error) {
	e := op.Expect
	check := func(ctx context.Context) (bool, error) {
		ok, _ := r.checkOnce(ctx, e)
		return ok, nil
	}
	if err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, timeout, true, check); err != nil {
		if ctx.Err() != nil {
			return "", ctx.Err()
		}
		// One last look, with time to finish it, says what is there.
		lastCtx, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		ok, describe := r.checkOnce(lastCtx, e)
		if ok {
			return r.opts.Lang.Msgf("held only after its timeout of %s", timeout), nil
		}
		return "", fmt.Errorf(r.opts.Lang.Msg("not true within %s: %w"), timeout, describe())
	}
	return "", nil
}

// checkOnce checks the expectation now.
func (r *runner) checkOnce(ctx context.Context, e *Expect) (bool, func() error) {
	l := r.opts.Lang
	if e.Object != nil {
		want, _ := format.JSONCopy(e.Object)
		wantObj := want.(map[string]any)
		r.expand(wantObj)
		ref, _ := format.RefOf(wantObj)
		_, objs, err := r.selectObjects(ctx, &ref)
		if err != nil {
			return false, func() error { return err }
		}
		if len(objs) == 0 {
			return false, func() error { return errors.New(l.Msgf("no %s exists", format.RefWhat(&ref))) }
		}
		var best []string
		var bestObj map[string]any
		for _, o := range objs {
			diff := match(l, wantObj, o.Object, "")
			if len(diff) == 0 {
				return true, nil
			}
			if best == nil || len(diff) < len(best) {
				best, bestObj = diff, o.Object
			}
		}
		return false, func() error {
			return errors.New(l.Msgf("%s does not match\nexpected:\n%s\nactual:\n%s\ndiff:\n  %s",
				format.RefWhat(&ref), indent(toYAML(wantObj)), indent(toYAML(prune(bestObj, wantObj))), strings.Join(best, "\n  ")))
		}
	}

	_, objs, err := r.selectObjects(ctx, e.Resource)
	if err != nil {
		return false, func() error { return err }
	}
	if e.Absent {
		if len(objs) == 0 {
			return true, nil
		}
		var names []string
		for _, o := range objs {
			name := o.GetName()
			// Deleted, but held by a finalizer: say which, in the
			// object's words.
			if o.GetDeletionTimestamp() != nil && len(o.GetFinalizers()) > 0 {
				name += l.Msgf(" (deleting, waiting for its finalizers: %s)", strings.Join(o.GetFinalizers(), ", "))
			}
			names = append(names, name)
		}
		return false, func() error { return errors.New(l.Msgf("still there: %s", strings.Join(names, ", "))) }
	}
	prg, err := format.CompileCEL(e.CEL)
	if err != nil {
		return false, func() error { return err }
	}
	vars := map[string]any{"objects": listOf(objs)}
	if e.Resource.Name != "" {
		if len(objs) == 0 {
			return false, func() error { return errors.New(l.Msgf("no %s exists", format.RefWhat(e.Resource))) }
		}
		vars["object"] = objs[0].Object
	} else {
		vars["object"] = map[string]any{}
	}
	out, _, err := prg.Eval(vars)
	if err == nil {
		if b, ok := out.Value().(bool); ok && b {
			return true, nil
		}
	}
	return false, func() error {
		what := l.Msgf("%d objects", len(objs))
		if e.Resource.Name != "" {
			what = l.Msg("the object")
		}
		if err != nil {
			return errors.New(l.Msgf("%s could not be evaluated: %v\nactual: %s: %s", e.CEL, err, what, summarize(l, objs)))
		}
		return errors.New(l.Msgf("%s is false\nexpected: %s\nactual: %s: %s", e.CEL, e.CEL, what, summarize(l, objs)))
	}
}

func listOf(objs []unstructured.Unstructured) []any {
	out := make([]any, len(objs))
	for i := range objs {
		out[i] = objs[i].Object
	}
	return out
}

// summarize names objects with their phase or ready counts, for failures.
func summarize(l lang.Lang, objs []unstructured.Unstructured) string {
	if len(objs) == 0 {
		return l.Msg("none")
	}
	var parts []string
	for _, o := range objs {
		s := o.GetName()
		var extra []string
		if o.GetDeletionTimestamp() != nil {
			extra = append(extra, l.Msg("deleting"))
		}
		if phase, ok, _ := unstructured.NestedString(o.Object, "status", "phase"); ok {
			extra = append(extra, phase)
		}
		if n, ok, _ := unstructured.NestedInt64(o.Object, "status", "readyReplicas"); ok {
			extra = append(extra, fmt.Sprintf("readyReplicas %d", n))
		}
		if len(extra) > 0 {
			s += l.Msgf(" (%s)", strings.Join(extra, l.Msg(", ")))
		}
		parts = append(parts, s)
		if len(parts) == 10 && len(objs) > 10 {
			parts = append(parts, l.Msgf("… %d more", len(objs)-10))
			break
		}
	}
	return strings.Join(parts, l.Msg(", "))
}

// match returns how actual differs from the partial object want: every
// field want gives must be equal in actual; a list matches when each
// element of want matches a different element of actual, in any order.
// Numbers compare by value (3 and 3.0 are equal).
func match(l lang.Lang, want, actual any, path string) []string {
	switch w := want.(type) {
	case map[string]any:
		a, ok := actual.(map[string]any)
		if !ok {
			return []string{l.Msgf("%s: want a mapping, got %s", orRoot(l, path), show(actual))}
		}
		var out []string
		keys := make([]string, 0, len(w))
		for k := range w {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			av, present := a[k]
			p := join(path, k)
			if !present {
				if w[k] == nil {
					continue
				}
				out = append(out, l.Msgf("%s: want %s, missing", p, show(w[k])))
				continue
			}
			out = append(out, match(l, w[k], av, p)...)
		}
		return out
	case []any:
		a, ok := actual.([]any)
		if !ok {
			return []string{l.Msgf("%s: want a list, got %s", orRoot(l, path), show(actual))}
		}
		used := make([]bool, len(a))
		var out []string
	next:
		for i, we := range w {
			var closest []string
			for j, ae := range a {
				if used[j] {
					continue
				}
				d := match(l, we, ae, fmt.Sprintf("%s[%d]", path, j))
				if len(d) == 0 {
					used[j] = true
					continue next
				}
				if closest == nil || len(d) < len(closest) {
					closest = d
				}
			}
			if closest == nil {
				out = append(out, l.Msgf("%s: no element matches %s (list has %d)", fmt.Sprintf("%s[%d]", path, i), show(we), len(a)))
			} else {
				out = append(out, l.Msgf("%s[%d]: no element matches; closest: %s", path, i, strings.Join(closest, l.Msg("; "))))
			}
		}
		return out
	default:
		if equalScalar(want, actual) {
			return nil
		}
		return []string{l.Msgf("%s: want %s, got %s", orRoot(l, path), show(want), show(actual))}
	}
}

func equalScalar(a, b any) bool {
	if fa, ok := number(a); ok {
		fb, ok := number(b)
		return ok && fa == fb
	}
	return reflect.DeepEqual(a, b)
}

func number(v any) (float64, bool) {
	switch n := v.(type) {
	case int64:
		return float64(n), true
	case int:
		return float64(n), true
	case float64:
		return n, true
	}
	return 0, false
}

func join(path, k string) string {
	if path == "" {
		return k
	}
	return path + "." + k
}

func orRoot(l lang.Lang, path string) string {
	if path == "" {
		return l.Msg("(object)")
	}
	return path
}

func show(v any) string {
	switch t := v.(type) {
	case nil:
		return "null"
	case string:
		return fmt.Sprintf("%q", t)
	case map[string]any, []any:
		b, err := yaml.Marshal(t)
		if err == nil {
			s := strings.TrimSpace(string(b))
			if !strings.Contains(s, "\n") {
				return "{" + s + "}"
			}
			return "{" + strings.ReplaceAll(s, "\n", ", ") + "}"
		}
	}
	return fmt.Sprint(v)
}

// prune keeps of actual only the fields want names, so that a failure
// shows what matters.
func prune(actual, want any) any {
	switch w := want.(type) {
	case map[string]any:
		a, ok := actual.(map[string]any)
		if !ok {
			return actual
		}
		out := map[string]any{}
		for k := range w {
			if v, ok := a[k]; ok {
				out[k] = prune(v, w[k])
			}
		}
		return out
	case []any:
		a, ok := actual.([]any)
		if !ok || len(w) == 0 {
			return actual
		}
		out := make([]any, len(a))
		for i := range a {
			out[i] = prune(a[i], w[0])
		}
		return out
	}
	return actual
}

func toYAML(v any) string {
	b, err := yaml.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return strings.TrimRight(string(b), "\n")
}

func indent(s string) string {
	return "  " + strings.ReplaceAll(s, "\n", "\n  ")
}
