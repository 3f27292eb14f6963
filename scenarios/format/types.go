package format

import (
	"fmt"
	"time"

	"github.com/crdlab/crdlab/lab/lang"
)

// APIVersion and Kind of a scenario file; KindLesson of a lesson's.
const (
	APIVersion = "crdlab.dev/v1alpha1"
	Kind       = "Scenario"
	// KindLesson is a lesson: a scenario whose task steps wait for the
	// learner ('crdlab learn').
	KindLesson = "Lesson"
)

// Scenario is a scripted, narrated run of reconcile loops.
type Scenario struct {
	APIVersion string   `json:"apiVersion" yaml:"apiVersion" doc:"Always crdlab.dev/v1alpha1." enum:"crdlab.dev/v1alpha1"`
	Kind       string   `json:"kind" yaml:"kind" doc:"Scenario, or Lesson: a scenario with task steps, which wait for the learner (crdlab learn)." enum:"Scenario,Lesson"`
	Metadata   Metadata `json:"metadata" yaml:"metadata" doc:"The scenario's name."`
	Spec       Spec     `json:"spec" yaml:"spec" doc:"What the scenario shows and its steps."`

	// Where the scenario came from: a file path, or builtin/NAME.yaml.
	source string
	// Lines of the steps in the source, for messages.
	stepLines []int
	// Reads files named by apply steps, relative to the scenario.
	readFile func(name string) ([]byte, error)
	// The language its text is in (In).
	lang lang.Lang
}

// Metadata names a scenario.
type Metadata struct {
	Name string `json:"name" yaml:"name" doc:"The scenario's name: lowercase letters, digits and '-'. Its namespace is crdlab-NAME-xxxxx."`
}

// Spec is what a scenario shows, and its steps.
type Spec struct {
	Title         string    `json:"title" yaml:"title" doc:"One line: what the user will see."`
	Concept       string    `json:"concept,omitempty" yaml:"concept,omitempty" doc:"The concept of the seed text the scenario shows (for example: 控制器 / reconcile loop)."`
	Explanation   string    `json:"explanation,omitempty" yaml:"explanation,omitempty" doc:"Printed at the end: what happened and why."`
	Requires      []string  `json:"requires,omitempty" yaml:"requires,omitempty" doc:"What the cluster must run: controller-manager, scheduler, nodes, operators, aggregated-api. Checked against a lab; against another cluster, lab actions are skipped with a note." enum:"controller-manager,scheduler,nodes,operators,aggregated-api"`
	MinKubernetes string    `json:"minKubernetes,omitempty" yaml:"minKubernetes,omitempty" doc:"The oldest Kubernetes minor the scenario runs on (1.36), when it needs an API or a feature older minors lack. On an apiserver of an older minor (its /version: crdlab up --kubernetes 1.35) the scenario is skipped with that reason, not failed."`
	Lab           *LabNeeds `json:"lab,omitempty" yaml:"lab,omitempty" doc:"The lab the scenario needs: how many simulated nodes, in how many zones. A lab with fewer skips the scenario, saying how to start one that has them; crdlab scenario run NAME, finding no lab, starts one that has them."`
	Timeout       Duration  `json:"timeout,omitempty" yaml:"timeout,omitempty" doc:"Default timeout of expect steps (a Go duration: 30s, 1m30s). Default 30s."`
	Steps         []Step    `json:"steps" yaml:"steps" doc:"The steps, run in order; the first failure ends the scenario."`
	ZH            *SpecZH   `json:"zh,omitempty" yaml:"zh,omitempty" doc:"The spec's text in Chinese (crdlab --lang zh): title, concept, explanation. A field left out is shown in English."`

	// A lesson's place on the course map (crdlab learn, the web UI).
	Order   int      `json:"order,omitempty" yaml:"order,omitempty" doc:"Lessons only: the lesson's place in the course (1 first): crdlab learn and the web UI's course map list the lessons by it."`
	After   []string `json:"after,omitempty" yaml:"after,omitempty" doc:"Lessons only: the lessons to do before this one, by name, shown on the course map. Each must be a lesson of the course (the built-in lessons), and no lesson may come, through after, after itself."`
	Minutes int      `json:"minutes,omitempty" yaml:"minutes,omitempty" doc:"Lessons only: about how many minutes the lesson takes, shown on the course map."`
	Seed    string   `json:"seed,omitempty" yaml:"seed,omitempty" doc:"Lessons only: the section of the seed text the lesson teaches, in the seed's own words (its headings, Chinese where the seed's are: 自定义控制器 / 和解循环), shown as it is in both languages on the course map."`
	// The state a lesson starts from, whatever path through the course
	// the learner took (start.go).
	Start *Start `json:"start,omitempty" yaml:"start,omitempty" doc:"Lessons only: the state the lesson starts from, and what must hold before its steps run, each need made by the lesson or named with the lesson to finish first. A learner comes from any lesson the course map allows before this one, or from a fresh lab."`
}

// LabNeeds is the lab a scenario needs.
type LabNeeds struct {
	Nodes int `json:"nodes,omitempty" yaml:"nodes,omitempty" doc:"At least this many simulated nodes (crdlab up --nodes), at most 5000."`
	Zones int `json:"zones,omitempty" yaml:"zones,omitempty" doc:"Spread over at least this many zones (crdlab up --zones; the label topology.kubernetes.io/zone), at most 26 and no more than nodes."`
}

// SpecZH is a spec's text in Chinese: the fields a learner reads, with the
// names they have in the spec.
type SpecZH struct {
	Title       string `json:"title,omitempty" yaml:"title,omitempty" doc:"spec.title in Chinese."`
	Concept     string `json:"concept,omitempty" yaml:"concept,omitempty" doc:"spec.concept in Chinese."`
	Explanation string `json:"explanation,omitempty" yaml:"explanation,omitempty" doc:"spec.explanation in Chinese."`

	// A lesson's start (start.go).
	Start *StartZH `json:"start,omitempty" yaml:"start,omitempty" doc:"spec.start's texts in Chinese: its text and the text of each need."`
}

// Step is one step: exactly one of its actions is set.
type Step struct {
	Name    string    `json:"name,omitempty" yaml:"name,omitempty" doc:"A short name for the step, shown in reports."`
	Timeout *Duration `json:"timeout,omitempty" yaml:"timeout,omitempty" doc:"How long expect (or expectError, for the write to be refused) may take. Default: spec.timeout."`
	// Kubernetes limits the step to some minors (kubernetes.go).
	Kubernetes string `json:"kubernetes,omitempty" yaml:"kubernetes,omitempty" doc:"Run the step only on these Kubernetes minors, as the apiserver's /version says (read once per run): one or two bounds, each >=, >, <=, < or = and a minor, separated by a comma: \">=1.37\", \"<1.37\", \">=1.36, <1.38\". On another minor the run leaves the step out, as if it were not written (the other steps keep their numbers); a lesson gives each minor its own narration, steps and tasks this way, each task with a name of its own. A bad range, or one no minor crdlab serves is in, is an error of the file. Omitted: every minor."`

	Narrate     string       `json:"narrate,omitempty" yaml:"narrate,omitempty" doc:"Text shown to the user: the scenario's explanation of what comes next." action:"true"`
	Apply       *Apply       `json:"apply,omitempty" yaml:"apply,omitempty" doc:"Create or update objects (server-side apply). A write the apiserver refuses because it could not call a webhook is tried again until the step's timeout: it learns of a webhook server started or a webhook configuration changed a moment later." action:"true"`
	Delete      *Delete      `json:"delete,omitempty" yaml:"delete,omitempty" doc:"Delete objects, by name or label selector." action:"true"`
	Patch       *Patch       `json:"patch,omitempty" yaml:"patch,omitempty" doc:"Patch an object." action:"true"`
	Scale       *Scale       `json:"scale,omitempty" yaml:"scale,omitempty" doc:"Set the replicas of an object through its scale subresource (kubectl scale)." action:"true"`
	Expect      *Expect      `json:"expect,omitempty" yaml:"expect,omitempty" doc:"Wait until objects match, or a CEL expression over them holds." action:"true"`
	ExpectError *ExpectError `json:"expectError,omitempty" yaml:"expectError,omitempty" doc:"A write that must be refused." action:"true"`
	Lab         *LabAction   `json:"lab,omitempty" yaml:"lab,omitempty" doc:"Act on the lab itself: stop or start a controller or a simulated node." action:"true"`
	Wait        *Duration    `json:"wait,omitempty" yaml:"wait,omitempty" doc:"Pause for a duration (a Go duration: 2s)." action:"true"`
	Task        *Task        `json:"task,omitempty" yaml:"task,omitempty" doc:"Lessons only: ask the learner to do something (with kubectl, an editor, their code) and wait, without a deadline, until the check holds; hints on request." action:"true"`

	ZH *StepZH `json:"zh,omitempty" yaml:"zh,omitempty" doc:"The step's text in Chinese (crdlab --lang zh): name, narrate, a task's text and hints. A field left out is shown in English."`

	// The language the step is described in (Scenario.In).
	lang lang.Lang
}

// StepZH is a step's text in Chinese: the fields a learner reads, with the
// names they have in the step.
type StepZH struct {
	Name    string  `json:"name,omitempty" yaml:"name,omitempty" doc:"name in Chinese."`
	Narrate string  `json:"narrate,omitempty" yaml:"narrate,omitempty" doc:"narrate in Chinese (a narrate step only)."`
	Task    *TaskZH `json:"task,omitempty" yaml:"task,omitempty" doc:"The task's text and hints in Chinese (a task step only)."`
}

// Task asks the learner to do something and waits until the check holds.
type Task struct {
	Text      string    `json:"text" yaml:"text" doc:"What the learner is asked to do. ${FILES} is the folder of the lesson's files, ${NAMESPACE} the learner's namespace."`
	Check     []Check   `json:"check" yaml:"check" doc:"What must hold for the task to be done: every one of these, checked again and again, without a deadline."`
	Hints     []string  `json:"hints,omitempty" yaml:"hints,omitempty" doc:"Hints, shown one at a time: when the learner asks (Enter, or crdlab learn hint from another terminal), or after hintAfter."`
	HintAfter *Duration `json:"hintAfter,omitempty" yaml:"hintAfter,omitempty" doc:"How long the task waits before it shows the next hint unasked (a Go duration; 0s: only on request). Default 3m."`
}

// Check is one condition of a task: exactly one of its fields is set.
// A task checks both sides where both exist: what the learner's rule must
// refuse (expectError) and what it must still let through (expectAccepted),
// and reads what the learner wrote (expect on the object's spec) where the
// outcome alone cannot tell a right answer from a wrong one.
type Check struct {
	Text           string          `json:"text,omitempty" yaml:"text,omitempty" doc:"What the check wants, in the learner's words (a User whose userID is above 65535 is refused): while it does not hold, the lesson says this, then what it found. ${NAMESPACE} and ${FILES} are expanded."`
	Expect         *Expect         `json:"expect,omitempty" yaml:"expect,omitempty" doc:"Objects match, or a CEL expression over them holds (as the expect step). Also how a check reads what the learner wrote: the stored spec of their object (a CRD's spec.names.shortNames), where the outcome alone cannot tell."`
	ExpectError    *ExpectError    `json:"expectError,omitempty" yaml:"expectError,omitempty" doc:"A write the learner would make is refused (as the expectError step, tried as a server-side dry run: nothing is stored): apply, or get for a read. Name what the refusal is about with causes (field and reason), not with message text."`
	ExpectAccepted *ExpectAccepted `json:"expectAccepted,omitempty" yaml:"expectAccepted,omitempty" doc:"A write the learner's work must still accept, tried as a server-side dry run (nothing is stored): the other side of expectError, which an over-strict answer fails."`
	ExpectRestored *ExpectRestored `json:"expectRestored,omitempty" yaml:"expectRestored,omitempty" doc:"An object the learner's controller keeps, put back while it runs: the check deletes it (when it exists) and it must come back, as a new object, within a time; a controller that only makes it when it starts (it lists everything) does not pass, however often it is restarted."`

	// Who must have made what the check sees (an expect's or an
	// expectRestored's): see Actor.
	By     string   `json:"by,omitempty" yaml:"by,omitempty" doc:"Who must have made what the check sees, when the task's text says who does it: the check holds only when the writer is this actor. An expect of an object: who wrote the fields it names (the object's managedFields); an expect of a resource with cel: who wrote its fields (give them); absent: who deleted it (the timeline's DELETE line, from the apiserver's audit log): who asked for the deletion, or who ended it by taking the last finalizer off (an Operator's), not Kubernetes' components or the kubelet that only carry out a deletion someone else asked for (the garbage collector ending a --cascade=foreground); expectRestored: who made the object that came back. learner: the learner's kubectl; learner-controller: the learner's own program (its user agent, or its field manager: a go run of theirs); garbage-collector; kubernetes: Kubernetes' own components (controller-manager, scheduler, apiserver); crdlab: the lesson itself and the lab (never the learner's work); webapp-operator, redis-operator, redis-backup-operator: the lab's operators. While another actor did it, the lesson says who." enum:"learner,learner-controller,garbage-collector,kubernetes,crdlab,webapp-operator,redis-operator,redis-backup-operator"`
	NotBy  []string `json:"notBy,omitempty" yaml:"notBy,omitempty" doc:"Actors that must not have made what the check sees (the words of by): crdlab, for a state the lesson or the lab could have brought back itself." enum:"learner,learner-controller,garbage-collector,kubernetes,crdlab,webapp-operator,redis-operator,redis-backup-operator"`
	Fields []string `json:"fields,omitempty" yaml:"fields,omitempty" doc:"With by or notBy on an expect of a resource with cel: the fields whose writers the check reads, as paths (status, metadata.finalizers, data). An expect of an object reads the fields it names."`
}

// ExpectRestored is an object a running controller must put back when it
// is deleted.
type ExpectRestored struct {
	ObjectRef `json:",inline" yaml:",inline"`
	Within    *Duration `json:"within,omitempty" yaml:"within,omitempty" doc:"How long the object may take to come back once the check deleted it. Default 10s."`
}

// ExpectAccepted is a write that must be accepted.
type ExpectAccepted struct {
	Apply *Apply `json:"apply" yaml:"apply" doc:"The write: an apply (created, or updated if it exists), as a server-side dry run. What the apiserver would store is compared with what it sends: a field it would drop (its schema prunes it) fails the check, named."`
	// MayDrop lists the fields the apiserver may drop from the write.
	MayDrop []string `json:"mayDrop,omitempty" yaml:"mayDrop,omitempty" doc:"Fields of the write the apiserver may drop (prune) without failing the check, as paths (spec.password): those the task's text does not claim, such as a field a newer storage version no longer has."`
}

// TaskZH is a task's text in Chinese.
type TaskZH struct {
	Text  string   `json:"text,omitempty" yaml:"text,omitempty" doc:"task.text in Chinese."`
	Hints []string `json:"hints,omitempty" yaml:"hints,omitempty" doc:"task.hints in Chinese, as many and in the same order."`
	Check []string `json:"check,omitempty" yaml:"check,omitempty" doc:"The text of each of task.check in Chinese, as many and in the same order (\"\" for a check without text)."`
}

// Apply creates or updates objects.
type Apply struct {
	File   string         `json:"file,omitempty" yaml:"file,omitempty" doc:"A YAML file of one or more objects, relative to the scenario file (built-in scenarios: to builtin/)."`
	Object map[string]any `json:"object,omitempty" yaml:"object,omitempty" doc:"One object, inline."`
}

// ObjectRef selects objects: one by name, or every one matching a label
// selector (or every one, with neither).
type ObjectRef struct {
	APIVersion string `json:"apiVersion" yaml:"apiVersion" doc:"API version of the objects: v1, apps/v1, samples.crdlab.dev/v1alpha1."`
	Kind       string `json:"kind" yaml:"kind" doc:"Kind of the objects: Pod, Deployment, WebApp."`
	Name       string `json:"name,omitempty" yaml:"name,omitempty" doc:"The object's name."`
	Namespace  string `json:"namespace,omitempty" yaml:"namespace,omitempty" doc:"Its namespace. Default: the scenario's namespace (for namespaced kinds)."`
	Selector   string `json:"selector,omitempty" yaml:"selector,omitempty" doc:"A label selector (app=web), instead of a name."`
}

// Delete deletes objects.
type Delete struct {
	ObjectRef   `json:",inline" yaml:",inline"`
	Pick        string `json:"pick,omitempty" yaml:"pick,omitempty" doc:"With a selector: all (default), first, or random: delete one picked at random." enum:"all,first,random"`
	Propagation string `json:"propagation,omitempty" yaml:"propagation,omitempty" doc:"Background (default), Foreground or Orphan: what happens to what the objects own." enum:"Background,Foreground,Orphan"`
	Wait        bool   `json:"wait,omitempty" yaml:"wait,omitempty" doc:"Wait until the objects are gone (finalizers done), within the step's timeout."`
}

// Patch patches one object.
type Patch struct {
	ObjectRef `json:",inline" yaml:",inline"`
	Type      string         `json:"type,omitempty" yaml:"type,omitempty" doc:"merge (default, RFC 7386), strategic (built-in kinds only) or json (RFC 6902, give the operations as a list in ops)." enum:"merge,strategic,json"`
	Patch     map[string]any `json:"patch,omitempty" yaml:"patch,omitempty" doc:"The patch, for merge and strategic."`
	Ops       []any          `json:"ops,omitempty" yaml:"ops,omitempty" doc:"The operations, for json."`
	// Subresource patches the object's status, as a controller writes it.
	Subresource string `json:"subresource,omitempty" yaml:"subresource,omitempty" doc:"Patch this subresource of the object, by name: status, as a controller writes it when its CRD has the status subresource (a patch of the object itself leaves its status as it is)." enum:"status"`
}

// Scale sets an object's replicas through the scale subresource.
type Scale struct {
	ObjectRef `json:",inline" yaml:",inline"`
	Replicas  int32 `json:"replicas" yaml:"replicas" doc:"The replicas to set."`
}

// Expect waits until objects are as expected.
type Expect struct {
	Object   map[string]any `json:"object,omitempty" yaml:"object,omitempty" doc:"A partial object (apiVersion, kind, metadata.name and the fields to check). Matches when every field given is equal in the live object; lists match when each element given matches a different element of the live list, in any order. Without metadata.name, some object of the kind (with metadata.labels: of those labels) must match."`
	Resource *ObjectRef     `json:"resource,omitempty" yaml:"resource,omitempty" doc:"The objects the CEL expression sees: with a name, as object; otherwise every match, as the list objects."`
	CEL      string         `json:"cel,omitempty" yaml:"cel,omitempty" doc:"A CEL expression over object (a map) or objects (a list of maps) that must become true, e.g. objects.size() == 3 && objects.all(p, p.status.phase == 'Running')."`
	Absent   bool           `json:"absent,omitempty" yaml:"absent,omitempty" doc:"With resource: wait until no object matches (deleted)."`
	// AllowEmpty lets a task's check over a set hold when the set is empty.
	AllowEmpty bool `json:"allowEmpty,omitempty" yaml:"allowEmpty,omitempty" doc:"With resource (no name) and cel, in a task's check: the expression may hold over no object at all. Without it a task's check over a set fails while the set is empty (objects.all(...) holds over nothing), and says so."`
}

// ExpectError is a write (or a read) that must be refused.
type ExpectError struct {
	Apply   *Apply     `json:"apply,omitempty" yaml:"apply,omitempty" doc:"The write: an apply."`
	Patch   *Patch     `json:"patch,omitempty" yaml:"patch,omitempty" doc:"The write: a patch."`
	Scale   *Scale     `json:"scale,omitempty" yaml:"scale,omitempty" doc:"The write: a scale."`
	Delete  *Delete    `json:"delete,omitempty" yaml:"delete,omitempty" doc:"The write: a delete."`
	Get     *ObjectRef `json:"get,omitempty" yaml:"get,omitempty" doc:"Or a read that must fail: get the object named, or list those selected (for example from an aggregated API that is down: 503)."`
	Code    int        `json:"code,omitempty" yaml:"code,omitempty" doc:"The HTTP status code the apiserver must answer (422 Invalid, 403 Forbidden, 404 NotFound, 409 Conflict). Omitted: any refusal."`
	Message string     `json:"message,omitempty" yaml:"message,omitempty" doc:"Text the error message must contain. Prefer causes: a message changes with the Kubernetes version and with the way a rule is written."`
	Causes  []Cause    `json:"causes,omitempty" yaml:"causes,omitempty" doc:"What the refusal must be about: each one given must match a cause of the apiserver's answer (its status.details.causes)."`
}

// Cause is one field error of a refusal, as the apiserver lists them in
// status.details.causes.
type Cause struct {
	Field  string `json:"field" yaml:"field" doc:"The field the refusal is about, as the apiserver writes it: spec.userID, spec.groups. A cause on this field, on a field inside it, or on a level above it matches: an x-kubernetes-validations rule is reported at the level it is written at (spec, for a rule on the spec's schema), unless it sets fieldPath."`
	Reason string `json:"reason,omitempty" yaml:"reason,omitempty" doc:"The cause's type (Kubernetes' metav1.CauseType): FieldValueInvalid, FieldValueRequired, FieldValueTypeInvalid, FieldValueNotSupported, FieldValueTooLong, FieldValueForbidden, FieldValueDuplicate. Omitted: any." enum:"FieldValueInvalid,FieldValueRequired,FieldValueTypeInvalid,FieldValueNotSupported,FieldValueNotFound,FieldValueDuplicate,FieldValueTooLong,FieldValueTooMany,FieldValueForbidden,FieldManagerConflict"`
}

// LabAction acts on the lab: exactly one field is set.
type LabAction struct {
	StopController  string `json:"stopController,omitempty" yaml:"stopController,omitempty" doc:"Stop a controller: controller-manager, scheduler, aggregated-api (the lab's aggregated API server), or an operator running in crdlab (webapp-operator, redis-operator, redis-backup-operator), or the WebApp's webhook server (webapp-webhooks)."`
	StartController string `json:"startController,omitempty" yaml:"startController,omitempty" doc:"Start a stopped controller again."`
	StopNode        string `json:"stopNode,omitempty" yaml:"stopNode,omitempty" doc:"Stop a simulated node, as if its machine died (lab-node-1, lab-node-2, lab-node-3)."`
	StartNode       string `json:"startNode,omitempty" yaml:"startNode,omitempty" doc:"Start a stopped simulated node."`
	StopNodes       string `json:"stopNodes,omitempty" yaml:"stopNodes,omitempty" doc:"Stop every simulated node whose labels match this selector, as if their machines died together (topology.kubernetes.io/zone=zone-c: a zone's power fails). Started again when the scenario ends."`
	StartNodes      string `json:"startNodes,omitempty" yaml:"startNodes,omitempty" doc:"Start every stopped simulated node whose labels match this selector."`
}

// Duration is a Go duration written as a string: 500ms, 30s, 1m30s.
type Duration struct{ time.Duration }

// MarshalJSON writes the duration as a string.
func (d Duration) MarshalJSON() ([]byte, error) { return []byte(fmt.Sprintf("%q", d.String())), nil }

// action returns the name of the step's action and how many are set.
func (s *Step) Action() (name string, n int) {
	set := []struct {
		name string
		on   bool
	}{
		{"narrate", s.Narrate != ""}, {"apply", s.Apply != nil}, {"delete", s.Delete != nil},
		{"patch", s.Patch != nil}, {"scale", s.Scale != nil}, {"expect", s.Expect != nil},
		{"expectError", s.ExpectError != nil}, {"lab", s.Lab != nil}, {"wait", s.Wait != nil},
		{"task", s.Task != nil},
	}
	for _, a := range set {
		if a.on {
			if n == 0 {
				name = a.name
			}
			n++
		}
	}
	return name, n
}

// IsLesson reports whether the file is a lesson (kind: Lesson).
func (s *Scenario) IsLesson() bool { return s.Kind == KindLesson }

// Source says where the scenario was loaded from.
func (s *Scenario) Source() string { return s.source }

// ReadFile reads a file an apply step names, relative to the scenario.
func (s *Scenario) ReadFile(name string) ([]byte, error) {
	if s.readFile == nil {
		return nil, fmt.Errorf("file %q: the scenario has no folder to read it from", name)
	}
	data, err := s.readFile(name)
	if err != nil {
		return nil, fmt.Errorf("file %q: %w", name, UnwrapPath(err))
	}
	return data, nil
}
