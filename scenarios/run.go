package scenarios

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/restmapper"

	"github.com/crdlab/crdlab/lab"
	"github.com/crdlab/crdlab/lab/timeline"
	"github.com/crdlab/crdlab/scenarios/format"
)

// FieldManager is the field manager of a scenario's writes; the timeline
// shows it as "you (scenario)".
const FieldManager = "crdlab-scenario"

// LabLabel marks the namespaces a scenario creates.
const LabLabel = "crdlab.dev/scenario"

// Lab is what a scenario can do to a lab beyond the Kubernetes API: a lab
// in this process (InProcess) or one behind 'crdlab up' (*lab.Control).
type Lab interface {
	StopController(ctx context.Context, name string) error
	StartController(ctx context.Context, name string) error
	StopNode(ctx context.Context, name string) error
	StartNode(ctx context.Context, name string) error
	Controllers(ctx context.Context) ([]lab.ControllerState, error)
	Nodes(ctx context.Context) ([]lab.NodeState, error)
}

// eventSource is a lab that streams the events only its process sees
// (*lab.Control).
type eventSource interface {
	Events(ctx context.Context, sink timeline.Sink, ready func()) error
}

// InProcess adapts a lab of this process (with its operators attached, see
// lab.Lab.AttachOperators) to Lab.
func InProcess(l *lab.Lab) Lab { return inProcess{l} }

// LabTarget is the target of a lab in this process: its apiserver, its lab
// actions, its audit log.
func LabTarget(l *lab.Lab) Target {
	return Target{Config: l.RESTConfig(), Lab: InProcess(l), AuditLog: l.AuditLog()}
}

type inProcess struct{ l *lab.Lab }

func (p inProcess) StopController(_ context.Context, name string) error {
	return p.l.StopController(name)
}
func (p inProcess) StartController(ctx context.Context, name string) error {
	return p.l.StartController(ctx, name)
}
func (p inProcess) StopNode(_ context.Context, name string) error { return p.l.StopNode(name) }
func (p inProcess) StartNode(ctx context.Context, name string) error {
	return p.l.StartNode(ctx, name)
}
func (p inProcess) Controllers(context.Context) ([]lab.ControllerState, error) {
	return p.l.Controllers(), nil
}
func (p inProcess) Nodes(context.Context) ([]lab.NodeState, error) {
	var out []lab.NodeState
	for _, n := range p.l.NodeNames() {
		out = append(out, lab.NodeState{Name: n, Running: true})
	}
	return out, nil
}

// Target is where a scenario runs.
type Target struct {
	// Config reaches the cluster's apiserver.
	Config *rest.Config
	// Lab, if not nil, performs lab steps; without it (a cluster reached
	// through a kubeconfig) they are skipped, and the steps after them.
	Lab Lab
	// AuditLog, if set, is the apiserver's audit log (lab.Lab.AuditLog): the
	// timeline reads it to name who deleted what (the garbage collector,
	// the namespace controller...).
	AuditLog string
	// Traces, if set, receives the reconcile passes of operators running in
	// this process (controllers.Options.Trace) and the requests the lab's
	// aggregated API server answers (lab.Options.Requests): they join the
	// timeline.
	Traces *timeline.Relay
}

// Entry is one line of a scenario's report: what Listener receives.
type Entry struct {
	Type        string          `json:"type"` // scenario, narrate, step, event, note, result
	Time        time.Time       `json:"time"`
	Scenario    string          `json:"scenario"`
	Title       string          `json:"title,omitempty"`
	Namespace   string          `json:"namespace,omitempty"`
	Step        int             `json:"step,omitempty"` // 1-based
	Steps       int             `json:"steps,omitempty"`
	Action      string          `json:"action,omitempty"`
	Description string          `json:"description,omitempty"`
	Status      string          `json:"status,omitempty"` // running, passed, failed, skipped
	Text        string          `json:"text,omitempty"`
	Event       *timeline.Event `json:"event,omitempty"`
	Seconds     float64         `json:"seconds,omitempty"`
}

// Statuses of steps and scenarios.
const (
	Running = "running"
	Passed  = "passed"
	Failed  = "failed"
	Skipped = "skipped"
)

// Listener receives a scenario's report as it happens. It is called from
// several goroutines, one call at a time.
type Listener func(Entry)

// Options configures a run.
type Options struct {
	// Listener receives the report; nil: nothing is reported.
	Listener Listener
	// Timeline shows every change in the scenario's namespaces as it
	// happens, with its actor (default true through Run's callers: the CLI
	// and RunAll turn it on).
	Timeline bool
}

// Result is how a scenario went.
type Result struct {
	Scenario  string        `json:"scenario"`
	Title     string        `json:"title"`
	Namespace string        `json:"namespace"`
	Status    string        `json:"status"` // passed, failed, skipped
	Message   string        `json:"message,omitempty"`
	Duration  time.Duration `json:"duration"`
	Steps     []StepResult  `json:"steps"`
}

// Passed reports whether the scenario passed.
func (r *Result) Passed() bool { return r.Status == Passed }

// StepResult is how a step went.
type StepResult struct {
	Index       int           `json:"index"` // 1-based
	Action      string        `json:"action"`
	Description string        `json:"description"`
	Status      string        `json:"status"`
	Message     string        `json:"message,omitempty"`
	Duration    time.Duration `json:"duration"`
}

// Run runs the scenario against target in a namespace of its own, and
// cleans up (its namespaces, what it installed outside them, controllers
// and nodes it stopped) when it ends, also when it fails or ctx is
// cancelled. The error is for a run that could not start; a failed
// expectation is in the result.
func Run(ctx context.Context, s *Scenario, target Target, opts Options) (*Result, error) {
	r, err := newRunner(s, target, opts)
	if err != nil {
		return nil, err
	}
	return r.run(ctx), nil
}

type runner struct {
	s      *Scenario
	target Target
	opts   Options
	dyn    dynamic.Interface
	mapper *restmapper.DeferredDiscoveryRESTMapper
	ns     string

	mu       sync.Mutex      // guards what the timeline reads, and emit
	ours     map[string]bool // namespaces of the scenario
	deleted  map[string]bool // kind/ns/name the scenario deleted
	created  []*unstructured.Unstructured
	stopped  []func(context.Context) error // undo of lab steps, in order
	nodeSeen bool
}

func newRunner(s *Scenario, target Target, opts Options) (*runner, error) {
	cfg := rest.CopyConfig(target.Config)
	cfg.QPS, cfg.Burst = 50, 100
	cfg.UserAgent = FieldManager // the audit log names the scenario as the client
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("unable to create a client for %s: %w", cfg.Host, err)
	}
	disc, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("unable to create a discovery client for %s: %w", cfg.Host, err)
	}
	return &runner{
		s: s, target: target, opts: opts, dyn: dyn,
		mapper:  restmapper.NewDeferredDiscoveryRESTMapper(memory.NewMemCacheClient(disc)),
		ours:    map[string]bool{},
		deleted: map[string]bool{},
	}, nil
}

func (r *runner) emit(e Entry) {
	if r.opts.Listener == nil {
		return
	}
	e.Time, e.Scenario = time.Now(), r.s.Metadata.Name
	r.mu.Lock()
	defer r.mu.Unlock()
	r.opts.Listener(e)
}

func (r *runner) run(ctx context.Context) *Result {
	start := time.Now()
	res := &Result{Scenario: r.s.Metadata.Name, Title: r.s.Spec.Title, Status: Passed}
	finish := func() *Result {
		res.Duration = time.Since(start)
		r.emit(Entry{Type: "result", Status: res.Status, Text: res.Message, Seconds: res.Duration.Seconds(),
			Description: r.s.Spec.Explanation, Namespace: res.Namespace})
		return res
	}
	if missing := r.missing(ctx); missing != "" {
		res.Status, res.Message = Skipped, missing
		return finish()
	}

	u := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "v1", "kind": "Namespace",
		"metadata": map[string]any{
			"generateName": "crdlab-" + r.s.Metadata.Name + "-",
			"labels":       map[string]any{LabLabel: r.s.Metadata.Name},
		},
	}}
	u, err := r.dyn.Resource(corev1.SchemeGroupVersion.WithResource("namespaces")).Create(ctx, u, metav1.CreateOptions{FieldManager: FieldManager})
	if err != nil {
		res.Status, res.Message = Failed, "unable to create the scenario's namespace: "+err.Error()
		return finish()
	}
	r.ns, res.Namespace = u.GetName(), u.GetName()
	r.ours[r.ns] = true
	r.created = append(r.created, u)
	defer r.cleanup()

	r.emit(Entry{Type: "scenario", Title: r.s.Spec.Title, Namespace: r.ns, Steps: len(r.s.Spec.Steps), Text: r.s.Spec.Concept})
	if r.opts.Timeline {
		wctx, stop := context.WithCancel(ctx)
		defer stop()
		if r.target.Traces != nil {
			r.target.Traces.Set(timeline.SinkFunc(r.record))
			defer r.target.Traces.Set(nil)
		}
		if es, ok := r.target.Lab.(eventSource); ok {
			// A lab in another process ('crdlab up') streams what only it
			// sees: its operators' reconcile passes, its aggregated API's
			// requests.
			open := make(chan struct{})
			go func() { _ = es.Events(wctx, timeline.SinkFunc(r.record), func() { close(open) }) }()
			select {
			case <-open:
			case <-time.After(5 * time.Second):
			case <-ctx.Done():
			}
		}
		synced := make(chan struct{})
		go func() {
			_ = timeline.WatchWith(wctx, r.target.Config, timeline.SinkFunc(r.record),
				timeline.Options{AuditLog: r.target.AuditLog, Synced: func() { close(synced) }})
		}()
		select {
		case <-synced:
		case <-time.After(30 * time.Second):
		case <-ctx.Done():
		}
	}

	skipRest := ""
	for i := range r.s.Spec.Steps {
		st := &r.s.Spec.Steps[i]
		action, _ := st.Action()
		sr := StepResult{Index: i + 1, Action: action, Description: st.Describe()}
		if skipRest != "" {
			sr.Status, sr.Message = Skipped, skipRest
			res.Steps = append(res.Steps, sr)
			r.emit(Entry{Type: "step", Step: i + 1, Steps: len(r.s.Spec.Steps), Action: action, Description: sr.Description, Status: Skipped, Text: skipRest})
			continue
		}
		if action == "narrate" {
			sr.Status = Passed
			res.Steps = append(res.Steps, sr)
			r.emit(Entry{Type: "narrate", Step: i + 1, Steps: len(r.s.Spec.Steps), Text: strings.TrimSpace(st.Narrate)})
			continue
		}
		r.emit(Entry{Type: "step", Step: i + 1, Steps: len(r.s.Spec.Steps), Action: action, Description: sr.Description, Status: Running})
		t0 := time.Now()
		note, err := r.step(ctx, st)
		sr.Duration = time.Since(t0)
		switch {
		case errors.Is(err, errSkip):
			sr.Status, sr.Message = Skipped, note
			skipRest = "skipped: an earlier lab step was skipped (" + note + ")"
			res.Status, res.Message = Skipped, note
		case err != nil:
			sr.Status, sr.Message = Failed, err.Error()
			if ctx.Err() != nil {
				sr.Message = "interrupted: " + ctx.Err().Error()
			}
			res.Status, res.Message = Failed, fmt.Sprintf("step %d (%s) failed", i+1, sr.Description)
			skipRest = "skipped: step " + fmt.Sprint(i+1) + " failed"
		default:
			sr.Status, sr.Message = Passed, note
		}
		res.Steps = append(res.Steps, sr)
		r.emit(Entry{Type: "step", Step: i + 1, Steps: len(r.s.Spec.Steps), Action: action, Description: sr.Description,
			Status: sr.Status, Text: sr.Message, Seconds: sr.Duration.Seconds()})
	}
	if r.opts.Timeline {
		time.Sleep(300 * time.Millisecond) // the last changes reach the timeline
	}
	if res.Status == Passed {
		res.Message = ""
	}
	return finish()
}

var errSkip = errors.New("skipped")

// missing says what the scenario requires that the lab does not run.
func (r *runner) missing(ctx context.Context) string {
	if r.target.Lab == nil || len(r.s.Spec.Requires) == 0 {
		return ""
	}
	ctrls, err := r.target.Lab.Controllers(ctx)
	if err != nil {
		return "unable to ask the lab what it runs: " + err.Error()
	}
	has := map[string]bool{}
	for _, c := range ctrls {
		has[c.Name] = true
		if strings.HasSuffix(c.Name, "-operator") {
			has[NeedsOperators] = true
		}
	}
	if nodes, err := r.target.Lab.Nodes(ctx); err == nil && len(nodes) > 0 {
		has[NeedsNodes] = true
	}
	var out []string
	for _, req := range r.s.Spec.Requires {
		if !has[req] {
			out = append(out, req)
		}
	}
	if len(out) == 0 {
		return ""
	}
	return "this lab does not run " + strings.Join(out, ", ") + " (started with --components or --no-samples?), which the scenario needs"
}

// record is the timeline sink: it keeps what happens in the scenario's
// namespaces (and to its namespaces, CRDs, and nodes when it acts on them),
// and names the scenario as the actor of its own deletions.
func (r *runner) record(e timeline.Event) {
	r.mu.Lock()
	keep := r.ours[e.Namespace]
	switch {
	case e.Namespace != "":
	case e.Kind == "Namespace":
		keep = r.ours[e.Name]
	case e.Kind == "CustomResourceDefinition":
		keep = r.createdHere("CustomResourceDefinition", e.Name)
	case e.Kind == "Node":
		keep = r.nodeSeen
	case e.Kind == "APIService", e.Kind == "NodeMetrics", e.Kind == "LabSummary":
		keep = true // the aggregated APIs, and requests to them
	}
	if keep && e.Verb == timeline.Delete && e.Actor == "?" && r.deleted[deletedKey(e.Kind, e.Namespace, e.Name)] {
		e.Actor = "you (scenario)"
	}
	r.mu.Unlock()
	if keep {
		r.emit(Entry{Type: "event", Event: &e})
	}
}

func (r *runner) createdHere(kind, name string) bool {
	for _, u := range r.created {
		if u.GetKind() == kind && u.GetName() == name {
			return true
		}
	}
	return false
}

func deletedKey(kind, ns, name string) string { return kind + "/" + ns + "/" + name }

// step runs one step; the string is a note on what it did.
func (r *runner) step(ctx context.Context, st *Step) (string, error) {
	timeout := r.s.Spec.Timeout.Duration
	if timeout == 0 {
		timeout = 30 * time.Second
	}
	if st.Timeout != nil {
		timeout = st.Timeout.Duration
	}
	switch action, _ := st.Action(); action {
	case "apply":
		return r.apply(ctx, st.Apply)
	case "delete":
		return r.delete(ctx, st.Delete, timeout)
	case "patch":
		return r.patch(ctx, st.Patch)
	case "scale":
		return r.scale(ctx, st.Scale)
	case "expect":
		return r.expect(ctx, st.Expect, timeout)
	case "expectError":
		return r.expectError(ctx, st.ExpectError)
	case "lab":
		return r.labStep(ctx, st.Lab)
	case "wait":
		select {
		case <-time.After(st.Wait.Duration):
			return "", nil
		case <-ctx.Done():
			return "", ctx.Err()
		}
	}
	return "", fmt.Errorf("unknown step")
}

// resource maps a kind to its resource and namespace; a kind a CRD just
// added is found by rediscovering, for up to 10 seconds.
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

// objects returns the objects of an apply step, with the scenario's
// namespace substituted for ${NAMESPACE}.
func (r *runner) objects(a *Apply) ([]*unstructured.Unstructured, error) {
	var objs []*unstructured.Unstructured
	var err error
	if a.File != "" {
		data, rerr := r.s.ReadFile(a.File)
		if rerr != nil {
			return nil, rerr
		}
		objs, err = format.DecodeObjects([]byte(strings.ReplaceAll(string(data), "${NAMESPACE}", r.ns)))
	} else {
		objs, err = format.ToObjects(a.Object)
		for _, o := range objs {
			substitute(o.Object, r.ns)
		}
	}
	return objs, err
}

func substitute(v any, ns string) any {
	switch t := v.(type) {
	case string:
		return strings.ReplaceAll(t, "${NAMESPACE}", ns)
	case map[string]any:
		for k, e := range t {
			t[k] = substitute(e, ns)
		}
	case []any:
		for i, e := range t {
			t[i] = substitute(e, ns)
		}
	}
	return v
}

func (r *runner) apply(ctx context.Context, a *Apply) (string, error) {
	objs, err := r.objects(a)
	if err != nil {
		return "", err
	}
	var done []string
	for _, o := range objs {
		ri, m, err := r.resource(ctx, o.GetAPIVersion(), o.GetKind(), o.GetNamespace())
		if err != nil {
			return "", err
		}
		var got *unstructured.Unstructured
		existed := false
		if o.GetName() == "" { // generateName: create
			got, err = ri.Create(ctx, o, metav1.CreateOptions{FieldManager: FieldManager})
		} else {
			// What existed before the scenario is not the scenario's to
			// delete when it ends (a CRD of the lab, with its objects).
			_, gerr := ri.Get(ctx, o.GetName(), metav1.GetOptions{})
			existed = gerr == nil
			got, err = ri.Apply(ctx, o.GetName(), o, metav1.ApplyOptions{FieldManager: FieldManager, Force: true})
		}
		if err != nil {
			return "", fmt.Errorf("%s/%s: %w", strings.ToLower(o.GetKind()), o.GetName(), err)
		}
		r.mu.Lock()
		if !existed {
			r.created = append(r.created, got)
		}
		if m.Resource.Resource == "namespaces" {
			r.ours[got.GetName()] = true
		}
		r.mu.Unlock()
		done = append(done, strings.ToLower(got.GetKind())+"/"+got.GetName())
	}
	return "applied " + strings.Join(done, ", "), nil
}

// selectObjects returns the objects ref names: the one named, or those its
// selector matches.
func (r *runner) selectObjects(ctx context.Context, ref *ObjectRef) (dynamic.ResourceInterface, []unstructured.Unstructured, error) {
	ref = r.sub(ref)
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

// sub returns ref with ${NAMESPACE} replaced by the scenario's namespace.
func (r *runner) sub(ref *ObjectRef) *ObjectRef {
	out := *ref
	for _, f := range []*string{&out.Name, &out.Namespace, &out.Selector} {
		*f = strings.ReplaceAll(*f, "${NAMESPACE}", r.ns)
	}
	return &out
}

func (r *runner) delete(ctx context.Context, d *Delete, timeout time.Duration) (string, error) {
	ri, objs, err := r.selectObjects(ctx, &d.ObjectRef)
	if err != nil {
		return "", err
	}
	var live []unstructured.Unstructured
	for _, o := range objs {
		if o.GetDeletionTimestamp() == nil {
			live = append(live, o)
		}
	}
	if len(live) == 0 {
		return "", fmt.Errorf("nothing to delete: no %s", format.RefWhat(&d.ObjectRef))
	}
	switch d.Pick {
	case "first":
		live = live[:1]
	case "random":
		i := rand.IntN(len(live))
		live = live[i : i+1]
	}
	opts := metav1.DeleteOptions{}
	if d.Propagation != "" {
		p := metav1.DeletionPropagation(d.Propagation)
		opts.PropagationPolicy = &p
	}
	var names []string
	for _, o := range live {
		r.mu.Lock()
		r.deleted[deletedKey(o.GetKind(), o.GetNamespace(), o.GetName())] = true
		r.mu.Unlock()
		if err := ri.Delete(ctx, o.GetName(), opts); err != nil && !apierrors.IsNotFound(err) {
			return "", fmt.Errorf("%s/%s: %w", strings.ToLower(o.GetKind()), o.GetName(), err)
		}
		names = append(names, strings.ToLower(o.GetKind())+"/"+o.GetName())
	}
	note := "deleted " + strings.Join(names, ", ")
	if !d.Wait {
		return note, nil
	}
	err = wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, timeout, true, func(ctx context.Context) (bool, error) {
		for _, o := range live {
			got, err := ri.Get(ctx, o.GetName(), metav1.GetOptions{})
			if err == nil && got.GetUID() == o.GetUID() {
				return false, nil
			}
			if err != nil && !apierrors.IsNotFound(err) {
				return false, nil
			}
		}
		return true, nil
	})
	if err != nil {
		return "", fmt.Errorf("%s: not gone within %s (a finalizer waits?)", strings.Join(names, ", "), timeout)
	}
	return note + ", gone", nil
}

func (r *runner) patch(ctx context.Context, p *Patch) (string, error) {
	ref := r.sub(&p.ObjectRef)
	ri, _, err := r.resource(ctx, ref.APIVersion, ref.Kind, ref.Namespace)
	if err != nil {
		return "", err
	}
	pt, body, err := patchBody(p)
	if err != nil {
		return "", err
	}
	if _, err := ri.Patch(ctx, ref.Name, pt, body, metav1.PatchOptions{FieldManager: FieldManager}); err != nil {
		return "", fmt.Errorf("%s: %w", format.RefWhat(&p.ObjectRef), err)
	}
	return "patched " + format.RefWhat(&p.ObjectRef), nil
}

func patchBody(p *Patch) (types.PatchType, []byte, error) {
	switch p.Type {
	case "json":
		b, err := json.Marshal(p.Ops)
		return types.JSONPatchType, b, err
	case "strategic":
		b, err := json.Marshal(p.Patch)
		return types.StrategicMergePatchType, b, err
	default:
		b, err := json.Marshal(p.Patch)
		return types.MergePatchType, b, err
	}
}

func (r *runner) scale(ctx context.Context, s *Scale) (string, error) {
	ref := r.sub(&s.ObjectRef)
	ri, _, err := r.resource(ctx, ref.APIVersion, ref.Kind, ref.Namespace)
	if err != nil {
		return "", err
	}
	body := fmt.Sprintf(`{"spec":{"replicas":%d}}`, s.Replicas)
	if _, err := ri.Patch(ctx, ref.Name, types.MergePatchType, []byte(body), metav1.PatchOptions{FieldManager: FieldManager}, "scale"); err != nil {
		return "", fmt.Errorf("%s: %w", format.RefWhat(&s.ObjectRef), err)
	}
	return fmt.Sprintf("scaled %s to %d", format.RefWhat(&s.ObjectRef), s.Replicas), nil
}

func (r *runner) expectError(ctx context.Context, e *ExpectError) (string, error) {
	var err error
	switch {
	case e.Apply != nil:
		_, err = r.apply(ctx, e.Apply)
	case e.Patch != nil:
		_, err = r.patch(ctx, e.Patch)
	case e.Scale != nil:
		_, err = r.scale(ctx, e.Scale)
	case e.Delete != nil:
		_, err = r.delete(ctx, e.Delete, 0)
	case e.Get != nil:
		err = r.read(ctx, e.Get)
	}
	if err == nil {
		return "", errors.New("accepted; want a refusal")
	}
	code := 0
	var status apierrors.APIStatus
	if errors.As(err, &status) {
		code = int(status.Status().Code)
	}
	if e.Code != 0 && code != e.Code {
		return "", fmt.Errorf("refused with status %d, want %d: %v", code, e.Code, err)
	}
	if e.Message != "" && !strings.Contains(err.Error(), e.Message) {
		return "", fmt.Errorf("refused, but the message does not contain %q:\n%v", e.Message, err)
	}
	if code != 0 {
		return fmt.Sprintf("refused (%d %s): %v", code, reasonOf(err), err), nil
	}
	return "refused: " + err.Error(), nil
}

// read gets or lists what ref selects, and returns only the error.
func (r *runner) read(ctx context.Context, ref *format.ObjectRef) error {
	ref = r.sub(ref)
	ri, _, err := r.resource(ctx, ref.APIVersion, ref.Kind, ref.Namespace)
	if err != nil {
		return err
	}
	if ref.Name != "" {
		_, err = ri.Get(ctx, ref.Name, metav1.GetOptions{})
		return err
	}
	_, err = ri.List(ctx, metav1.ListOptions{LabelSelector: ref.Selector})
	return err
}

func reasonOf(err error) string {
	return string(apierrors.ReasonForError(err))
}

func (r *runner) labStep(ctx context.Context, l *LabAction) (string, error) {
	if r.target.Lab == nil {
		return "a lab action, and this cluster is not a crdlab lab", errSkip
	}
	lb := r.target.Lab
	switch {
	case l.StopController != "":
		if err := lb.StopController(ctx, l.StopController); err != nil {
			return "", err
		}
		r.undo(func(ctx context.Context) error { return lb.StartController(ctx, l.StopController) })
		return l.StopController + " stopped", nil
	case l.StartController != "":
		return l.StartController + " started", lb.StartController(ctx, l.StartController)
	case l.StopNode != "":
		r.mu.Lock()
		r.nodeSeen = true
		r.mu.Unlock()
		if err := lb.StopNode(ctx, l.StopNode); err != nil {
			return "", err
		}
		r.undo(func(ctx context.Context) error { return lb.StartNode(ctx, l.StopNode) })
		return "node " + l.StopNode + " stopped", nil
	default:
		return "node " + l.StartNode + " started", lb.StartNode(ctx, l.StartNode)
	}
}

func (r *runner) undo(f func(context.Context) error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.stopped = append(r.stopped, f)
}

// cleanup starts again what the scenario stopped, and deletes its
// namespaces and what it created outside them; it runs when the scenario
// ends, however it ends.
func (r *runner) cleanup() {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	r.mu.Lock()
	undo, created := r.stopped, r.created
	r.mu.Unlock()
	for _, f := range undo {
		_ = f(ctx) // starting what runs already does nothing
	}
	for i := len(created) - 1; i >= 0; i-- {
		u := created[i]
		if u.GetNamespace() != "" && r.ours[u.GetNamespace()] {
			continue // goes with its namespace
		}
		ri, _, err := r.resource(ctx, u.GetAPIVersion(), u.GetKind(), u.GetNamespace())
		if err != nil {
			continue
		}
		bg := metav1.DeletePropagationBackground
		_ = ri.Delete(ctx, u.GetName(), metav1.DeleteOptions{PropagationPolicy: &bg})
	}
}
