package format

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/validation"
)

// Problem is one thing wrong with a scenario file, at a line.
type Problem struct {
	Line int    `json:"line"`
	Msg  string `json:"message"`
}

// LoadError lists every problem found in a scenario file.
type LoadError struct {
	File     string
	Problems []Problem
}

func (e *LoadError) Error() string {
	var b strings.Builder
	for i, p := range e.Problems {
		if i > 0 {
			b.WriteString("\n")
		}
		if p.Line > 0 {
			fmt.Fprintf(&b, "%s:%d: %s", e.File, p.Line, p.Msg)
		} else {
			fmt.Fprintf(&b, "%s: %s", e.File, p.Msg)
		}
	}
	return b.String()
}

// LoadFile loads and checks a scenario file; files its apply steps name are
// read relative to it.
func LoadFile(path string) (*Scenario, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("unable to read scenario: %w", err)
	}
	dir := filepath.Dir(path)
	return Parse(path, data, func(name string) ([]byte, error) {
		if filepath.IsAbs(name) {
			return os.ReadFile(name)
		}
		return os.ReadFile(filepath.Join(dir, name))
	})
}

// Parse decodes and checks a scenario. source names it in messages;
// readFile reads the files its apply steps name (nil: they are not checked).
// Every problem found is reported, each with its line: unknown fields and
// steps, wrong types, bad durations, selectors and CEL expressions, steps
// with no action or two.
func Parse(source string, data []byte, readFile func(string) ([]byte, error)) (*Scenario, error) {
	lerr := &LoadError{File: source}
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil {
		lerr.Problems = append(lerr.Problems, yamlProblems(err)...)
		return nil, lerr
	}
	if root.Kind == 0 || len(root.Content) == 0 {
		lerr.Problems = append(lerr.Problems, Problem{Msg: "empty file: want a Scenario (apiVersion: " + APIVersion + ", kind: Scenario)"})
		return nil, lerr
	}
	s := &Scenario{source: source, readFile: readFile}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(s); err != nil {
		for _, p := range yamlProblems(err) {
			if g := badValue.FindStringSubmatch(p.Msg); g != nil {
				if path := pathOf(&root, p.Line, g[1]); path != "" {
					p.Msg = path + ": " + p.Msg
				}
			}
			lerr.Problems = append(lerr.Problems, p)
		}
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); err == nil {
		lerr.Problems = append(lerr.Problems, Problem{Line: extra.Line, Msg: "a second YAML document: a scenario file holds one Scenario"})
	}
	s.stepLines = stepLines(&root)
	unknownStep := map[int]bool{}
	for i, p := range lerr.Problems {
		if strings.HasPrefix(p.Msg, "unknown step") {
			unknownStep[p.Line] = true
			for j, l := range s.stepLines {
				if l <= p.Line && (j+1 == len(s.stepLines) || p.Line < s.stepLines[j+1]) {
					msg := p.Msg
					if j < len(s.Spec.Steps) {
						if action, n := s.Spec.Steps[j].Action(); n > 0 {
							// The step has its action: the key is a stray field.
							key := unknownStepKey.FindStringSubmatch(p.Msg)[1]
							msg = fmt.Sprintf("unknown field %q in a %s step (a step has name, timeout and one action)", key, action)
						}
					}
					lerr.Problems[i].Msg = fmt.Sprintf("spec.steps[%d]: %s", j, msg)
				}
			}
		}
	}
	for _, p := range s.check(&root) {
		if !(unknownStep[p.Line] && strings.Contains(p.Msg, "no action")) { // said already
			lerr.Problems = append(lerr.Problems, p)
		}
	}
	if len(lerr.Problems) > 0 {
		sort.SliceStable(lerr.Problems, func(i, j int) bool { return lerr.Problems[i].Line < lerr.Problems[j].Line })
		return nil, lerr
	}
	return s, nil
}

// UnmarshalYAML reads a Go duration, reporting a bad one with its line and
// decoding on (so that every problem of a file is reported at once).
func (d *Duration) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind != yaml.ScalarNode {
		return &yaml.TypeError{Errors: []string{fmt.Sprintf("line %d: want a duration such as 30s or 1m30s", n.Line)}}
	}
	v, err := time.ParseDuration(n.Value)
	if err != nil || v < 0 {
		return &yaml.TypeError{Errors: []string{fmt.Sprintf("line %d: bad duration %q: want a Go duration such as 500ms, 30s or 1m30s", n.Line, n.Value)}}
	}
	d.Duration = v
	return nil
}

var (
	unknownStepKey = regexp.MustCompile(`^unknown step "(.*?)"`)
	badValue       = regexp.MustCompile(`^(?:wrong type: |bad duration )"(.*?)"`)
	yamlLine       = regexp.MustCompile(`^(?:yaml: )?line (\d+): (.*)$`)
	unknownField   = regexp.MustCompile(`^field (\S+) not found in type format\.(\w+)$`)
	cannotDecode   = regexp.MustCompile("^cannot unmarshal !!(\\w+) `(.*)` into (.*)$")
)

// yamlProblems turns the YAML decoder's errors into problems in the words
// of the format.
func yamlProblems(err error) []Problem {
	var msgs []string
	var te *yaml.TypeError
	if errors.As(err, &te) {
		msgs = te.Errors
	} else {
		msgs = []string{err.Error()}
	}
	var out []Problem
	for _, m := range msgs {
		p := Problem{Msg: m}
		if g := yamlLine.FindStringSubmatch(m); g != nil {
			p.Line, _ = strconv.Atoi(g[1])
			p.Msg = g[2]
		}
		if g := unknownField.FindStringSubmatch(p.Msg); g != nil {
			if g[2] == "Step" {
				p.Msg = fmt.Sprintf("unknown step %q (steps: %s)", g[1], strings.Join(actionNames(), ", "))
			} else {
				p.Msg = fmt.Sprintf("unknown field %q in %s (fields: %s)", g[1], typeWord(g[2]), strings.Join(fieldNames(g[2]), ", "))
			}
		} else if g := cannotDecode.FindStringSubmatch(p.Msg); g != nil {
			p.Msg = fmt.Sprintf("wrong type: %q is a %s, want %s", g[2], yamlType(g[1]), goType(g[3]))
		}
		out = append(out, p)
	}
	return out
}

func yamlType(t string) string {
	switch t {
	case "str":
		return "string"
	case "int", "float":
		return "number"
	case "bool":
		return "boolean"
	case "seq":
		return "list"
	case "map":
		return "mapping"
	}
	return t
}

func goType(t string) string {
	switch {
	case strings.HasPrefix(t, "[]"):
		return "a list"
	case strings.HasPrefix(t, "map["), strings.HasPrefix(t, "scenarios."), strings.HasPrefix(t, "format."):
		return "a mapping"
	case strings.HasPrefix(t, "int"):
		return "an integer"
	case t == "bool":
		return "true or false"
	case t == "string":
		return "a string"
	}
	return t
}

var formatTypes = map[string]reflect.Type{
	"Scenario": reflect.TypeFor[Scenario](), "Metadata": reflect.TypeFor[Metadata](), "Spec": reflect.TypeFor[Spec](),
	"Step": reflect.TypeFor[Step](), "Apply": reflect.TypeFor[Apply](), "ObjectRef": reflect.TypeFor[ObjectRef](),
	"Delete": reflect.TypeFor[Delete](), "Patch": reflect.TypeFor[Patch](), "Scale": reflect.TypeFor[Scale](),
	"Expect": reflect.TypeFor[Expect](), "ExpectError": reflect.TypeFor[ExpectError](), "LabAction": reflect.TypeFor[LabAction](),
	"SpecZH": reflect.TypeFor[SpecZH](), "StepZH": reflect.TypeFor[StepZH](),
	"Task": reflect.TypeFor[Task](), "Check": reflect.TypeFor[Check](), "TaskZH": reflect.TypeFor[TaskZH](),
	"ExpectAccepted": reflect.TypeFor[ExpectAccepted](), "Cause": reflect.TypeFor[Cause](), "ExpectRestored": reflect.TypeFor[ExpectRestored](),
	"LabNeeds": reflect.TypeFor[LabNeeds](),
}

func typeWord(name string) string {
	switch name {
	case "Scenario":
		return "the scenario"
	case "LabAction":
		return "lab"
	case "ExpectError":
		return "expectError"
	case "ExpectAccepted":
		return "expectAccepted"
	case "ExpectRestored":
		return "expectRestored"
	case "Cause":
		return "a cause of expectError"
	case "LabNeeds":
		return "spec.lab"
	case "SpecZH":
		return "spec.zh"
	case "StepZH":
		return "a step's zh"
	case "Check":
		return "a task's check"
	case "TaskZH":
		return "a step's zh.task"
	}
	return strings.ToLower(name[:1]) + name[1:]
}

// fieldNames lists the YAML fields of a type of the format.
func fieldNames(typeName string) []string {
	t, ok := formatTypes[typeName]
	if !ok {
		return nil
	}
	return fieldsOf(t)
}

func fieldsOf(t reflect.Type) []string {
	var out []string
	for f := range t.Fields() {
		if !f.IsExported() {
			continue
		}
		name, opts, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		if opts == "inline" {
			out = append(out, fieldsOf(f.Type)...)
			continue
		}
		if name != "" {
			out = append(out, name)
		}
	}
	return out
}

func actionNames() []string {
	var out []string
	for f := range reflect.TypeFor[Step]().Fields() {
		if f.Tag.Get("action") == "true" {
			name, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
			out = append(out, name)
		}
	}
	return out
}

// pathOf returns the path (spec.steps[3].scale.replicas) of the scalar
// value at line, or "".
func pathOf(root *yaml.Node, line int, value string) string {
	var walk func(n *yaml.Node, path string) string
	walk = func(n *yaml.Node, path string) string {
		switch n.Kind {
		case yaml.DocumentNode:
			for _, c := range n.Content {
				if p := walk(c, path); p != "" {
					return p
				}
			}
		case yaml.MappingNode:
			for i := 0; i+1 < len(n.Content); i += 2 {
				p := n.Content[i].Value
				if path != "" {
					p = path + "." + p
				}
				v := n.Content[i+1]
				if v.Line == line && v.Kind == yaml.ScalarNode && v.Value == value {
					return p
				}
				if found := walk(v, p); found != "" {
					return found
				}
			}
		case yaml.SequenceNode:
			for i, c := range n.Content {
				p := fmt.Sprintf("%s[%d]", path, i)
				if c.Line == line && c.Kind == yaml.ScalarNode && c.Value == value {
					return p
				}
				if found := walk(c, p); found != "" {
					return found
				}
			}
		}
		return ""
	}
	return walk(root, "")
}

// node returns the mapping value at path under n, or nil.
func node(n *yaml.Node, path ...string) *yaml.Node {
	if n != nil && n.Kind == yaml.DocumentNode && len(n.Content) > 0 {
		n = n.Content[0]
	}
	for _, key := range path {
		if n == nil || n.Kind != yaml.MappingNode {
			return nil
		}
		var next *yaml.Node
		for i := 0; i+1 < len(n.Content); i += 2 {
			if n.Content[i].Value == key {
				next = n.Content[i+1]
			}
		}
		n = next
	}
	return n
}

func lineAt(n *yaml.Node, path ...string) int {
	if v := node(n, path...); v != nil {
		return v.Line
	}
	return 0
}

func stepLines(root *yaml.Node) []int {
	steps := node(root, "spec", "steps")
	if steps == nil || steps.Kind != yaml.SequenceNode {
		return nil
	}
	out := make([]int, len(steps.Content))
	for i, s := range steps.Content {
		out[i] = s.Line
	}
	return out
}

// Requirements a scenario can name.
const (
	NeedsControllerManager = "controller-manager"
	NeedsScheduler         = "scheduler"
	NeedsNodes             = "nodes"
	NeedsOperators         = "operators"
	NeedsAggregatedAPI     = "aggregated-api"
)

// check finds what the YAML decoder cannot: missing and conflicting
// fields, steps with no action or two, bad selectors and CEL expressions,
// files that do not exist.
func (s *Scenario) check(root *yaml.Node) []Problem {
	var out []Problem
	add := func(line int, format string, args ...any) {
		out = append(out, Problem{Line: line, Msg: fmt.Sprintf(format, args...)})
	}
	if s.APIVersion != APIVersion {
		add(lineAt(root, "apiVersion"), "apiVersion is %q, want %s", s.APIVersion, APIVersion)
	}
	if s.Kind != Kind && s.Kind != KindLesson {
		add(lineAt(root, "kind"), "kind is %q, want %s (or %s)", s.Kind, Kind, KindLesson)
	}
	switch errs := validation.IsDNS1123Label(s.Metadata.Name); {
	case s.Metadata.Name == "":
		add(lineAt(root, "metadata"), "metadata.name is required")
	case len(errs) > 0 || len(s.Metadata.Name) > 40:
		add(lineAt(root, "metadata", "name"), "metadata.name %q: want at most 40 lowercase letters, digits and '-'", s.Metadata.Name)
	}
	if s.Spec.Title == "" {
		add(lineAt(root, "spec"), "spec.title is required")
	}
	if m := s.Spec.MinKubernetes; m != "" && !minorRE.MatchString(m) {
		add(lineAt(root, "spec", "minKubernetes"), "spec.minKubernetes %q: want a Kubernetes minor, as 1.36", m)
	}
	if n := s.Spec.Lab; n != nil {
		switch {
		case n.Nodes < 0 || n.Nodes > 5000:
			add(lineAt(root, "spec", "lab", "nodes"), "spec.lab.nodes %d: want 1 to 5000", n.Nodes)
		case n.Zones < 0 || n.Zones > 26 || n.Zones > max(n.Nodes, 3):
			add(lineAt(root, "spec", "lab", "zones"), "spec.lab.zones %d: want 0 to 26, and no more than spec.lab.nodes", n.Zones)
		}
	}
	for _, r := range s.Spec.Requires {
		switch r {
		case NeedsControllerManager, NeedsScheduler, NeedsNodes, NeedsOperators, NeedsAggregatedAPI:
		default:
			add(lineAt(root, "spec", "requires"), "spec.requires: unknown %q (known: controller-manager, scheduler, nodes, operators, aggregated-api)", r)
		}
	}
	if z := s.Spec.ZH; z != nil {
		for _, f := range []struct {
			name   string
			en, zh string
		}{{"title", s.Spec.Title, z.Title}, {"concept", s.Spec.Concept, z.Concept}, {"explanation", s.Spec.Explanation, z.Explanation}} {
			if f.zh != "" && f.en == "" {
				add(lineAt(root, "spec", "zh", f.name), "spec.zh.%s: the Chinese of a text the scenario does not have: give spec.%s too", f.name, f.name)
			}
		}
	}
	out = append(out, s.checkCourse(root)...)
	out = append(out, s.checkStart(root)...)
	if len(s.Spec.Steps) == 0 && node(root, "spec", "steps") == nil {
		add(lineAt(root, "spec"), "spec.steps is required: a scenario needs at least one step")
	}
	for i := range s.Spec.Steps {
		line := 0
		if i < len(s.stepLines) {
			line = s.stepLines[i]
		}
		for _, msg := range s.Spec.Steps[i].check(s.readFile, s.IsLesson()) {
			add(line, "spec.steps[%d]: %s", i, msg)
		}
		if k := s.Spec.Steps[i].Kubernetes; k != "" {
			if msg := checkMinors(k); msg != "" {
				at := line
				if steps := node(root, "spec", "steps"); steps != nil && steps.Kind == yaml.SequenceNode && i < len(steps.Content) {
					if l := lineAt(steps.Content[i], "kubernetes"); l > 0 {
						at = l
					}
				}
				add(at, "spec.steps[%d].%s", i, msg)
			}
		}
	}
	return out
}

func (st *Step) check(readFile func(string) ([]byte, error), lesson bool) []string {
	var out []string
	bad := func(format string, args ...any) { out = append(out, fmt.Sprintf(format, args...)) }
	name, n := st.Action()
	switch {
	case n == 0:
		bad("no action: a step needs one of %s", strings.Join(actionNames(), ", "))
		return out
	case n > 1:
		bad("more than one action: a step has exactly one of %s", strings.Join(actionNames(), ", "))
		return out
	}
	switch name {
	case "apply":
		out = append(out, st.Apply.check(readFile)...)
	case "delete":
		out = append(out, st.Delete.check()...)
	case "patch":
		out = append(out, st.Patch.check()...)
	case "scale":
		out = append(out, prefixed("scale", st.Scale.ObjectRef.check(true))...)
	case "expect":
		out = append(out, st.Expect.check()...)
	case "expectError":
		out = append(out, st.ExpectError.check(readFile)...)
	case "lab":
		fields := 0
		for _, v := range []string{st.Lab.StopController, st.Lab.StartController, st.Lab.StopNode, st.Lab.StartNode, st.Lab.StopNodes, st.Lab.StartNodes} {
			if v != "" {
				fields++
			}
		}
		if fields != 1 {
			bad("lab: give exactly one of stopController, startController, stopNode, startNode, stopNodes, startNodes")
		}
		for name, sel := range map[string]string{"stopNodes": st.Lab.StopNodes, "startNodes": st.Lab.StartNodes} {
			if sel == "" {
				continue
			}
			if _, err := labels.Parse(sel); err != nil {
				bad("lab.%s %q: not a label selector: %v", name, sel, err)
			}
		}
	case "task":
		if !lesson {
			bad("task: a task waits for a learner: it belongs in a lesson (kind: Lesson, crdlab learn), not in a scenario, which runs by itself")
		}
		out = append(out, st.Task.check(readFile)...)
	}
	if z := st.ZH; z != nil {
		if z.Name != "" && st.Name == "" {
			bad("zh.name: the Chinese of a name the step does not have: give name too")
		}
		if z.Narrate != "" && name != "narrate" {
			bad("zh.narrate: only a narrate step has narration, not %s", name)
		}
		if z.Task != nil {
			switch {
			case name != "task":
				bad("zh.task: only a task step has a task's text, not %s", name)
			case z.Task.Hints != nil && len(z.Task.Hints) != len(st.Task.Hints):
				bad("zh.task.hints: %d hints, want as many as task.hints (%d), in the same order", len(z.Task.Hints), len(st.Task.Hints))
			case z.Task.Check != nil && len(z.Task.Check) != len(st.Task.Check):
				bad("zh.task.check: %d texts, want one for each of task.check (%d), in the same order", len(z.Task.Check), len(st.Task.Check))
			}
		}
	}
	if st.Timeout != nil && name != "expect" && name != "expectError" && !(name == "delete" && st.Delete.Wait) {
		bad("timeout applies to expect, expectError and delete with wait, not to %s", name)
	}
	return out
}

func prefixed(prefix string, msgs []string) []string {
	for i := range msgs {
		msgs[i] = prefix + ": " + msgs[i]
	}
	return msgs
}

func (a *Apply) check(readFile func(string) ([]byte, error)) []string {
	switch {
	case (a.File == "") == (a.Object == nil):
		return []string{"apply: give exactly one of file and object"}
	case a.Object != nil:
		if _, err := ToObjects(a.Object); err != nil {
			return []string{"apply.object: " + err.Error()}
		}
	case readFile != nil:
		data, err := readFile(a.File)
		if err != nil {
			return []string{fmt.Sprintf("apply.file %q: %v", a.File, UnwrapPath(err))}
		}
		if _, err := DecodeObjects(data); err != nil {
			return []string{fmt.Sprintf("apply.file %q: %v", a.File, err)}
		}
	}
	return nil
}

// UnwrapPath drops the path of a file error, which the message names already.
func UnwrapPath(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

func (r *ObjectRef) check(needName bool) []string {
	var out []string
	if r.APIVersion == "" {
		out = append(out, "apiVersion is required")
	}
	if r.Kind == "" {
		out = append(out, "kind is required")
	}
	if r.Name != "" && r.Selector != "" {
		out = append(out, "give a name or a selector, not both")
	}
	if needName && r.Name == "" {
		out = append(out, "name is required")
	}
	if r.Selector != "" {
		if _, err := labels.Parse(r.Selector); err != nil {
			out = append(out, fmt.Sprintf("selector %q: %v", r.Selector, err))
		}
	}
	return out
}

func (d *Delete) check() []string {
	out := prefixed("delete", d.ObjectRef.check(false))
	switch d.Pick {
	case "", "all":
	case "first", "random":
		if d.Selector == "" && d.Name != "" {
			out = append(out, "delete: pick applies to a selector, not to a name")
		}
	default:
		out = append(out, fmt.Sprintf("delete.pick %q: want all, first or random", d.Pick))
	}
	switch d.Propagation {
	case "", "Background", "Foreground", "Orphan":
	default:
		out = append(out, fmt.Sprintf("delete.propagation %q: want Background, Foreground or Orphan", d.Propagation))
	}
	return out
}

func (p *Patch) check() []string {
	out := prefixed("patch", p.ObjectRef.check(true))
	switch p.Type {
	case "", "merge", "strategic":
		if p.Patch == nil || p.Ops != nil {
			out = append(out, "patch: a merge or strategic patch needs patch (and no ops)")
		}
	case "json":
		if p.Ops == nil || p.Patch != nil {
			out = append(out, "patch: a json patch needs ops (and no patch)")
		}
	default:
		out = append(out, fmt.Sprintf("patch.type %q: want merge, strategic or json", p.Type))
	}
	switch {
	case p.Subresource != "" && p.Subresource != "status":
		out = append(out, fmt.Sprintf("patch.subresource %q: want status", p.Subresource))
	case p.Subresource != "" && p.Name == "":
		out = append(out, "patch.subresource: give the object's name")
	}
	return out
}

func (e *Expect) check() []string {
	var out []string
	switch {
	case e.Object != nil && (e.Resource != nil || e.CEL != "" || e.Absent):
		out = append(out, "expect: give object, or resource with cel or absent, not both")
	case e.Object != nil:
		if _, err := RefOf(e.Object); err != nil {
			out = append(out, "expect.object: "+err.Error())
		}
	case e.Resource == nil:
		out = append(out, "expect: give object, or resource with cel or absent")
	default:
		out = append(out, prefixed("expect.resource", e.Resource.check(false))...)
		switch {
		case e.CEL == "" && !e.Absent:
			out = append(out, "expect: resource needs cel or absent")
		case e.CEL != "" && e.Absent:
			out = append(out, "expect: give cel or absent, not both")
		case e.CEL != "":
			if _, err := CompileCEL(e.CEL); err != nil {
				out = append(out, "expect.cel: "+err.Error())
			}
		}
	}
	if e.AllowEmpty && (e.Resource == nil || e.Resource.Name != "" || e.CEL == "") {
		out = append(out, "expect.allowEmpty: only with resource (no name) and cel: a check over a set")
	}
	return out
}

func (e *ExpectError) check(readFile func(string) ([]byte, error)) []string {
	var out []string
	writes := 0
	if e.Apply != nil {
		writes++
		out = append(out, prefixed("expectError", e.Apply.check(readFile))...)
	}
	if e.Patch != nil {
		writes++
		out = append(out, prefixed("expectError", e.Patch.check())...)
	}
	if e.Scale != nil {
		writes++
		out = append(out, prefixed("expectError.scale", e.Scale.ObjectRef.check(true))...)
	}
	if e.Delete != nil {
		writes++
		out = append(out, prefixed("expectError", e.Delete.check())...)
	}
	if e.Get != nil {
		writes++
		out = append(out, prefixed("expectError.get", e.Get.check(false))...)
	}
	if writes != 1 {
		out = append(out, "expectError: give exactly one of apply, patch, scale, delete (writes) and get (a read)")
	}
	if e.Code != 0 && (e.Code < 400 || e.Code > 599) {
		out = append(out, fmt.Sprintf("expectError.code %d: want an HTTP error status, 400-599", e.Code))
	}
	for i, c := range e.Causes {
		if strings.TrimSpace(c.Field) == "" {
			out = append(out, fmt.Sprintf("expectError.causes[%d].field is required: the field the refusal is about (spec.userID)", i))
		}
		if f, _ := reflect.TypeFor[Cause]().FieldByName("Reason"); c.Reason != "" && !slices.Contains(strings.Split(f.Tag.Get("enum"), ","), c.Reason) {
			out = append(out, fmt.Sprintf("expectError.causes[%d].reason %q: want one of %s", i, c.Reason, strings.ReplaceAll(f.Tag.Get("enum"), ",", ", ")))
		}
	}
	return out
}

func (t *Task) check(readFile func(string) ([]byte, error)) []string {
	var out []string
	if strings.TrimSpace(t.Text) == "" {
		out = append(out, "task.text is required: what the learner is asked to do")
	}
	if len(t.Check) == 0 {
		out = append(out, "task.check is required: what must hold for the task to be done")
	}
	for i, c := range t.Check {
		p := fmt.Sprintf("task.check[%d]", i)
		switch {
		case c.count() != 1:
			out = append(out, p+": give exactly one of expect, expectError, expectAccepted and expectRestored")
		case c.Expect != nil:
			out = append(out, prefixed(p, c.Expect.check())...)
		case c.ExpectRestored != nil:
			out = append(out, prefixed(p+".expectRestored", c.ExpectRestored.ObjectRef.check(true))...)
		case c.ExpectAccepted != nil:
			if c.ExpectAccepted.Apply == nil {
				out = append(out, p+".expectAccepted: apply is required: the write that must be accepted")
			} else {
				out = append(out, prefixed(p+".expectAccepted", c.ExpectAccepted.Apply.check(readFile))...)
			}
		default:
			e := c.ExpectError
			out = append(out, prefixed(p, e.check(readFile))...)
			if e.Patch != nil || e.Scale != nil || e.Delete != nil {
				out = append(out, p+".expectError: a task tries its write as a dry run: give apply (or get), not patch, scale or delete")
			}
		}
		out = append(out, prefixed(p, c.checkCause())...)
	}
	for i, h := range t.Hints {
		if strings.TrimSpace(h) == "" {
			out = append(out, fmt.Sprintf("task.hints[%d] is empty", i))
		}
	}
	return out
}

// Actors are the words of a check's by and notBy (Check.By's enum).
func Actors() []string {
	f, _ := reflect.TypeFor[Check]().FieldByName("By")
	return strings.Split(f.Tag.Get("enum"), ",")
}

// checkCause checks what a check says of who made what it sees: by and
// notBy name actors, on a check that reads an object (an expect, an
// expectRestored), and fields say which of its fields where the check
// itself does not (an expect of a resource with cel).
func (c *Check) checkCause() []string {
	var out []string
	actors := Actors()
	if c.By != "" && !slices.Contains(actors, c.By) {
		out = append(out, fmt.Sprintf("by %q: want one of %s", c.By, strings.Join(actors, ", ")))
	}
	for i, a := range c.NotBy {
		switch {
		case !slices.Contains(actors, a):
			out = append(out, fmt.Sprintf("notBy[%d] %q: want one of %s", i, a, strings.Join(actors, ", ")))
		case a == c.By:
			out = append(out, fmt.Sprintf("notBy[%d] %q: also by", i, a))
		}
	}
	cause := c.By != "" || len(c.NotBy) > 0
	switch {
	case !cause && len(c.Fields) > 0:
		out = append(out, "fields: only with by or notBy (the fields whose writer the check reads)")
	case !cause:
	case c.ExpectError != nil || c.ExpectAccepted != nil:
		out = append(out, "by, notBy: only an expect or an expectRestored reads who made what it sees (a dry run makes nothing)")
	case c.Expect != nil && c.Expect.CEL != "" && len(c.Fields) == 0:
		out = append(out, "by, notBy: an expect with cel needs fields: the fields whose writer the check reads (status, metadata.finalizers)")
	case c.Expect != nil && c.Expect.Absent && (c.Expect.Resource == nil || c.Expect.Resource.Name == ""):
		out = append(out, "by, notBy: an expect of absent reads who deleted one object: give its name")
	case len(c.Fields) > 0 && (c.ExpectRestored != nil || c.Expect != nil && (c.Expect.Object != nil || c.Expect.Absent)):
		out = append(out, "fields: only with an expect of a resource with cel (an object names its fields; absent and expectRestored read who deleted or made it)")
	}
	for i, f := range c.Fields {
		if strings.TrimSpace(f) == "" || strings.HasPrefix(f, ".") || strings.HasSuffix(f, ".") || strings.Contains(f, "..") {
			out = append(out, fmt.Sprintf("fields[%d] %q: want a path of the object (status, metadata.finalizers)", i, f))
		}
	}
	return out
}

// count says how many of the check's kinds are set.
func (c *Check) count() int {
	n := 0
	for _, set := range []bool{c.Expect != nil, c.ExpectError != nil, c.ExpectAccepted != nil, c.ExpectRestored != nil} {
		if set {
			n++
		}
	}
	return n
}

// minorRE is a Kubernetes minor as spec.minKubernetes takes it.
var minorRE = regexp.MustCompile(`^1\.(0|[1-9]\d*)$`)
